import { CallerIdentity } from './caller-identity';

/**
 * Options of `ToolHandler.addToGateway`.
 */
export interface AddToGatewayOptions {
  /**
   * The gateway target's name: the `<target>` of the `<target>___<tool>` names that MCP clients see.
   * Valid characters are a-z, A-Z, 0-9, _ and -.
   *
   * @default - the ToolHandler's construct id, with any other character replaced by `-`
   */
  readonly gatewayTargetName?: string;

  /**
   * A description of the gateway target.
   *
   * @default - no description
   */
  readonly description?: string;

  /**
   * Who the gateway's callers are: with it, a REQUEST interceptor verifies each request's bearer
   * token and proves its caller to the tools (`ctx.caller`: the token's `sub` as `id`, its `iss` as
   * `issuer`, the named `claims`); a request without a valid token is refused with a 401 and never
   * reaches the tools. The gateway must be an `agentcore.Gateway` of this app (it takes the
   * interceptor); handlers added to one gateway share its interceptor and must give equal
   * identities. It adds a KMS signing key per gateway (docs/writing-tools.md, "Who asked").
   *
   * @default - no caller: Gateway calls reach the tools with `ctx.caller` undefined
   */
  readonly callerIdentity?: CallerIdentity;
}

/**
 * Who a call acts for: taken from what AWS or a signature this package checked attests, never from
 * the args (docs: "Who asked"). A host that proves nothing gives no caller.
 */

/** A claim value a caller may carry: what the construct's `claims` names, as the issuer sent it. */
export type CallerClaim = string | number | boolean | string[];

/** The caller of a call, as `ctx.caller` shows it to a tool. */
export interface Caller {
  /** An AWS principal's id (SQS `SenderId`), or the identity provider's subject (`sub`). */
  readonly id: string;
  /** `iam`: an AWS principal; `user`: an end user of an identity provider. */
  readonly kind: 'iam' | 'user';
  /** The host that said who it is: `sqs`, `agentcore`, `bedrock-agent`. */
  readonly source: string;
  /** True only when AWS, or a signature this package's code checked, attests it. */
  readonly verified: boolean;
  /** The identity provider (a token's `iss`), for a `user`. */
  readonly issuer?: string;
  /** The claims the construct names, for a `user` (`CallerIdentity.jwt({ claims })`). */
  readonly claims?: Readonly<Record<string, CallerClaim>>;
}

/**
 * Who asked, as approvers see it (the approvals API, the CLI, the reply bus's `Tool Approval
 * Requested`): id, kind, whether it is verified, and the claims the construct names for display;
 * not the issuer or the host.
 */
export function requesterView(caller: Caller): { id: string; kind: Caller['kind']; verified: boolean; claims?: Caller['claims'] } {
  return { id: caller.id, kind: caller.kind, verified: caller.verified, ...(caller.claims === undefined ? {} : { claims: caller.claims }) };
}

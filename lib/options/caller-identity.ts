import { Token } from 'aws-cdk-lib';

/**
 * Options of `CallerIdentity.jwt`: the identity provider whose tokens name the end users of a
 * gateway, and which of its tokens the gateway's tools accept.
 */
export interface JwtCallerIdentityOptions {
  /**
   * The identity provider's OpenID discovery document: `https://<issuer>/.well-known/openid-configuration`
   * (for Amazon Cognito, `https://cognito-idp.<region>.amazonaws.com/<user pool id>/.well-known/openid-configuration`).
   * A token's `iss` must be that document's `issuer`, and its signature must be by a key of its `jwks_uri`.
   */
  readonly discoveryUrl: string;

  /**
   * Accepted audiences: a token is accepted when its `aud` holds one of them. Give `audience`,
   * `clients`, or both.
   *
   * @default - no audience is accepted: only `clients` decide
   */
  readonly audience?: string[];

  /**
   * Accepted clients: a token is accepted when its `client_id` (which access tokens carry, such as
   * Cognito's) is one of them. Give `audience`, `clients`, or both.
   *
   * @default - no client is accepted: only `audience` decides
   */
  readonly clients?: string[];

  /**
   * The token's claims a tool sees in `ctx.caller.claims` (and approvers beside the caller's id),
   * by name: those the token has whose values are strings, numbers, booleans or arrays of strings.
   * The caller's proof that carries them must stay within 1,536 bytes; a call whose claims make it
   * larger is refused (docs/writing-tools.md, "Who asked").
   *
   * @default - no claims: `ctx.caller` has the token's `sub` as `id` and its `iss` as `issuer`
   */
  readonly claims?: string[];
}

/**
 * Who the end user behind a call is, and how the construct proves it to the tools
 * (`addToGateway(gateway, { callerIdentity })`, docs/writing-tools.md, "Who asked").
 *
 * @example
 * import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
 * import { CallerIdentity } from 'cdk-tool-handler';
 *
 * const gateway = new agentcore.Gateway(this, 'Gateway', { gatewayName: 'agents' });
 * tools.addToGateway(gateway, {
 *   callerIdentity: CallerIdentity.jwt({
 *     discoveryUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_EXAMPLE/.well-known/openid-configuration',
 *     clients: ['4example6client'],
 *     claims: ['email'],
 *   }),
 * });
 */
export class CallerIdentity {
  /**
   * The end users of a gateway are the subjects of an OpenID Connect provider's JWTs: a REQUEST
   * interceptor verifies each request's bearer token (signature by the provider's keys, `iss`,
   * `exp`, `nbf`, and `aud` or `client_id`) and hands the tool a signed proof of the token's `sub`,
   * `iss` and the named claims; a request without a valid token is refused with a 401.
   */
  public static jwt(options: JwtCallerIdentityOptions): CallerIdentity {
    return new CallerIdentity(options);
  }

  /** The identity provider's OpenID discovery document URL. */
  public readonly discoveryUrl: string;

  /** Accepted audiences (`aud`). */
  public readonly audience: string[];

  /** Accepted clients (`client_id`). */
  public readonly clients: string[];

  /** The claims carried to `ctx.caller.claims`. */
  public readonly claims: string[];

  private constructor(options: JwtCallerIdentityOptions) {
    const where = 'CallerIdentity.jwt';
    this.discoveryUrl = checkedDiscoveryUrl(options.discoveryUrl, where);
    this.audience = checkedNames(options.audience, `${where} \`audience\``);
    this.clients = checkedNames(options.clients, `${where} \`clients\``);
    this.claims = checkedNames(options.claims, `${where} \`claims\``);
    if (this.audience.length === 0 && this.clients.length === 0) {
      throw new Error(
        `${where}: give \`audience\` or \`clients\` (or both): a token is accepted when its \`aud\` holds one of \`audience\` ` +
          'or its `client_id` is one of `clients`, and with neither no token would be.',
      );
    }
  }
}

const DISCOVERY_SUFFIX = '/.well-known/openid-configuration';

function checkedDiscoveryUrl(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new Error(`${where}: \`discoveryUrl\` is required: the identity provider's https://.../.well-known/openid-configuration URL.`);
  }
  if (Token.isUnresolved(value) && !value.endsWith(DISCOVERY_SUFFIX)) return value;
  const https = value.startsWith('https://');
  const loopback = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(value);
  if (!(https || loopback) || !value.endsWith(DISCOVERY_SUFFIX)) {
    throw new Error(
      `${where}: \`discoveryUrl\` must be an https:// URL (http:// only on 127.0.0.1 or localhost, for a local issuer) ending in ` +
        `${DISCOVERY_SUFFIX} (the provider's OpenID discovery document), ` +
        `got: ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

function checkedNames(values: unknown, where: string): string[] {
  if (values === undefined) return [];
  if (!Array.isArray(values) || !values.every((value) => typeof value === 'string' && value.length > 0)) {
    throw new Error(`${where} must be a list of non-empty strings.`);
  }
  return [...new Set(values as string[])];
}


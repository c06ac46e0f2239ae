/**
 * What the interceptor states of a verified tool call (lambda/caller-proof.ts): who asked (`iss`,
 * `sub`, the claims the construct names) for which call (the tool's name as the Gateway names it,
 * the digest of its arguments), until when. The proof must fit beside the call in the Lambda client
 * context the Gateway hands the target, so it is bounded (`MAX_PROOF_BYTES`); a larger one is
 * refused before anything is signed, naming the claims that made it (never their values).
 */
import type { JWTPayload } from 'jose';
import type { CallerClaim } from '../caller';
import { argsDigest, CALLER_PROOF_LIFETIME_S, statementPayload, type CallerStatement } from '../caller-proof';

/**
 * The largest proof the interceptor hands on. Lambda's client context is at most 3,583 bytes of
 * base64 (about 2,680 bytes of JSON), shared with the tool's name, the session id and the other
 * propagated headers; a proof of at most 1,536 bytes leaves them room.
 */
export const MAX_PROOF_BYTES = 1536;

/** The longest DER-encoded ECDSA P-256 signature (72 bytes), in base64url. */
const MAX_SIGNATURE_CHARS = 96;

export type StatementOutcome =
  | { readonly ok: true; readonly payload: string }
  | { readonly ok: false; readonly reason: string };

export interface StatedCall {
  /** `params.name` of the `tools/call`: `<target>___<tool>`. */
  readonly tool: string;
  /** `params.arguments` of the `tools/call`. */
  readonly args: unknown;
}

/** The signed-to-be payload of a call's proof, or why it would not fit. */
export function callerStatement(
  issuer: string,
  token: JWTPayload & { sub: string },
  call: StatedCall,
  claimNames: readonly string[],
  now: number = Date.now(),
): StatementOutcome {
  const claims = carriedClaims(token, claimNames);
  const statement: CallerStatement = {
    v: 1,
    iss: issuer,
    sub: token.sub,
    ...(Object.keys(claims).length > 0 ? { claims } : {}),
    tool: call.tool,
    args: argsDigest(call.args ?? {}),
    exp: Math.floor(now / 1000) + CALLER_PROOF_LIFETIME_S,
  };
  const payload = statementPayload(statement);
  const bytes = payload.length + 1 + MAX_SIGNATURE_CHARS;
  if (bytes <= MAX_PROOF_BYTES) return { ok: true, payload };
  const carried = Object.keys(claims);
  const cause = carried.length > 0
    ? `the claims it carries (${carried.join(', ')}) are too many or too large: name fewer or smaller ones in CallerIdentity.jwt({ claims })`
    : "the token's issuer and subject alone are too long";
  return { ok: false, reason: `The caller's proof would be up to ${bytes} bytes, over the ${MAX_PROOF_BYTES} the Gateway can hand the tool: ${cause}.` };
}

/**
 * The named claims the token has, of the kinds a caller may carry (string, number, boolean, array of
 * strings); a claim of another kind is left out.
 */
export function carriedClaims(token: JWTPayload, names: readonly string[]): Record<string, CallerClaim> {
  const claims: Record<string, CallerClaim> = {};
  for (const name of names) {
    const value = Object.hasOwn(token, name) ? token[name] : undefined;
    if (isCallerClaim(value)) claims[name] = value;
  }
  return claims;
}

function isCallerClaim(value: unknown): value is CallerClaim {
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

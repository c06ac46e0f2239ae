/**
 * The request's bearer token, verified with `jose` against the trusted issuer: its signature by one
 * of the issuer's keys (asymmetric algorithms only, so `alg: none` and an HMAC "signed" with the
 * public key fail), `iss` equal to the discovery document's issuer, `exp` (required) and `nbf`, a
 * `sub`, and its audience: `aud` holds one of the accepted audiences, or `client_id` (which access
 * tokens carry) is one of the accepted clients. A refusal says what was wrong in words of its own,
 * never the token or a value from it.
 */
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { IssuerUnavailable, trustedIssuer } from './issuer';
import type { InterceptorSettings } from './settings';

/** The signature algorithms of public-key JWTs: what an issuer's JWKS can verify. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Tolerated clock difference between the issuer and the interceptor. */
const CLOCK_TOLERANCE_S = 30;

export type TokenCheck =
  | { readonly ok: true; readonly issuer: string; readonly claims: JWTPayload & { sub: string } }
  /** `status` 401: the request's token is missing or not valid; 503: the issuer's keys could not be read. */
  | { readonly ok: false; readonly status: 401 | 503; readonly reason: string };

export async function checkBearerToken(headers: unknown, settings: Pick<InterceptorSettings, 'discoveryUrl' | 'audiences' | 'clients'>): Promise<TokenCheck> {
  const token = bearerToken(headers);
  if (token === undefined) return refused('the request has no `Authorization: Bearer <token>` header');
  let trusted;
  try {
    trusted = await trustedIssuer(settings.discoveryUrl);
  } catch (error) {
    return unavailable(error);
  }
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, trusted.keys, {
      issuer: trusted.issuer,
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (error) {
    return error instanceof IssuerUnavailable ? unavailable(error) : refused(whyInvalid(error));
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') return refused('the token has no subject (`sub`)');
  if (!accepted(claims, settings)) {
    return refused('the token is for another audience: neither its `aud` nor its `client_id` is one this gateway accepts');
  }
  return { ok: true, issuer: trusted.issuer, claims: claims as JWTPayload & { sub: string } };
}

/** The token of an `Authorization: Bearer <token>` header (any case of the name and of the scheme). */
function bearerToken(headers: unknown): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'authorization');
  const value = typeof entry?.[1] === 'string' ? entry[1].trim() : '';
  const match = /^bearer\s+(\S+)$/i.exec(value);
  return match ? match[1] : undefined;
}

function accepted(claims: JWTPayload, settings: Pick<InterceptorSettings, 'audiences' | 'clients'>): boolean {
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (audiences.some((aud) => settings.audiences.includes(aud))) return true;
  return typeof claims.client_id === 'string' && settings.clients.includes(claims.client_id);
}

function whyInvalid(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'the token is from another issuer than the one this gateway trusts';
    if (error.claim === 'nbf') return 'the token is not valid yet (`nbf`)';
    if (error.reason === 'missing') return `the token has no \`${error.claim}\` claim`;
    return `the token's \`${error.claim}\` claim is not valid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with a public-key algorithm';
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is not signed by a key of the trusted issuer';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token\'s signature is not valid';
  return 'the token is not a well-formed signed JWT';
}

function refused(reason: string): TokenCheck {
  return { ok: false, status: 401, reason };
}

function unavailable(error: unknown): TokenCheck {
  const detail = error instanceof IssuerUnavailable ? error.message : 'it could not be read';
  return { ok: false, status: 503, reason: `the identity provider could not be reached: ${detail}` };
}

/**
 * The identity provider the interceptor trusts, read from its OpenID discovery document: its
 * `issuer` (what a token's `iss` must be) and its signing keys (`jwks_uri`). Both are kept for the
 * container: a warm invocation makes no network call. The keys are read again when a token names a
 * key not seen yet (the issuer rotated; at most once per 30 s) or when they are 10 minutes old (a key
 * the issuer withdrew is dropped); a failed read is forgotten, so the next request tries again.
 */
import { createRemoteJWKSet, errors, type JWTVerifyGetKey } from 'jose';

export interface TrustedIssuer {
  /** The discovery document's `issuer`. */
  readonly issuer: string;
  readonly keys: JWTVerifyGetKey;
  /** Where a browser signs in (`authorization_endpoint`), when the document names it. */
  readonly authorizationEndpoint?: string;
  /** Where a code becomes tokens (`token_endpoint`), when the document names it. */
  readonly tokenEndpoint?: string;
  /** Where a browser signs out of the provider (`end_session_endpoint`), when the document names it. */
  readonly endSessionEndpoint?: string;
}

/** How long reading the discovery document or the keys may take. */
const FETCH_TIMEOUT_MS = 5000;
/** How long the keys are kept before they are read again. */
const KEYS_MAX_AGE_MS = 10 * 60 * 1000;

const issuers = new Map<string, Promise<TrustedIssuer>>();

/** Why the issuer could not be read: the interceptor answers it as the provider's trouble, not the caller's. */
export class IssuerUnavailable extends Error {
  override readonly name = 'IssuerUnavailable';
}

export function trustedIssuer(discoveryUrl: string): Promise<TrustedIssuer> {
  let issuer = issuers.get(discoveryUrl);
  if (!issuer) {
    issuer = discover(discoveryUrl);
    issuers.set(discoveryUrl, issuer);
    issuer.catch(() => issuers.delete(discoveryUrl));
  }
  return issuer;
}

async function discover(discoveryUrl: string): Promise<TrustedIssuer> {
  let document: unknown;
  try {
    const response = await fetch(discoveryUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) throw new IssuerUnavailable(`the discovery document answered HTTP ${response.status}`);
    document = await response.json();
  } catch (error) {
    throw error instanceof IssuerUnavailable ? error : new IssuerUnavailable(`the discovery document could not be read (${(error as Error).name})`);
  }
  const {
    issuer,
    jwks_uri: jwksUri,
    authorization_endpoint: authorizationEndpoint,
    token_endpoint: tokenEndpoint,
    end_session_endpoint: endSessionEndpoint,
  } = (document ?? {}) as { issuer?: unknown; jwks_uri?: unknown; authorization_endpoint?: unknown; token_endpoint?: unknown; end_session_endpoint?: unknown };
  if (typeof issuer !== 'string' || issuer === '' || typeof jwksUri !== 'string') {
    throw new IssuerUnavailable('the discovery document has no `issuer` or no `jwks_uri`');
  }
  let keysUrl: URL;
  try {
    keysUrl = new URL(jwksUri);
  } catch {
    throw new IssuerUnavailable('the discovery document\'s `jwks_uri` is not a URL');
  }
  const remote = createRemoteJWKSet(keysUrl, { timeoutDuration: FETCH_TIMEOUT_MS, cacheMaxAge: KEYS_MAX_AGE_MS });
  const keys: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      throw unreadKeys(error) ? new IssuerUnavailable('its keys (`jwks_uri`) could not be read') : error;
    }
  };
  return {
    issuer,
    keys,
    ...(typeof authorizationEndpoint === 'string' ? { authorizationEndpoint } : {}),
    ...(typeof tokenEndpoint === 'string' ? { tokenEndpoint } : {}),
    ...(typeof endSessionEndpoint === 'string' ? { endSessionEndpoint } : {}),
  };
}

/**
 * Whether reading the keys failed (no answer, a timeout, an answer that is not a JWKS), rather than
 * the token naming no key of the set: the provider's trouble, not the caller's.
 */
function unreadKeys(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return true;
  return error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC';
}

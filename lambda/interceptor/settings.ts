/**
 * What the construct configures the Gateway interceptor with (`CallerIdentity.jwt`), read from its
 * environment once: the issuer's discovery URL, the accepted audiences and clients, the claims to
 * carry, and the KMS key that signs. A value that does not parse is a configuration error naming the
 * variable.
 */
import type { Env } from '../config';
import { configError } from '../errors';
import { ENV, INTERCEPTOR_ENV } from '../construct-contract';

export interface InterceptorSettings {
  /** The issuer's `/.well-known/openid-configuration` URL. */
  readonly discoveryUrl: string;
  /** A token is accepted when its `aud` holds one of these ... */
  readonly audiences: readonly string[];
  /** ... or its `client_id` is one of these. */
  readonly clients: readonly string[];
  /** The claims carried to `ctx.caller.claims`, by name. */
  readonly claims: readonly string[];
  /** The KMS key (ARN or id) that signs callers' proofs. */
  readonly keyId: string;
}

export function interceptorSettings(env: Env = process.env): InterceptorSettings {
  const discoveryUrl = required(env, INTERCEPTOR_ENV.callerDiscoveryUrl);
  try {
    new URL(discoveryUrl);
  } catch {
    throw configError(`${INTERCEPTOR_ENV.callerDiscoveryUrl} must be a URL (the issuer's /.well-known/openid-configuration).`);
  }
  const audiences = stringList(env, INTERCEPTOR_ENV.callerAudiences);
  const clients = stringList(env, INTERCEPTOR_ENV.callerClients);
  if (audiences.length === 0 && clients.length === 0) {
    throw configError(`the Gateway interceptor needs ${INTERCEPTOR_ENV.callerAudiences} or ${INTERCEPTOR_ENV.callerClients} to name at least one audience or client.`);
  }
  return { discoveryUrl, audiences, clients, claims: stringList(env, INTERCEPTOR_ENV.callerClaims), keyId: required(env, ENV.callerKey) };
}

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw configError(`the Gateway interceptor needs ${name} to be set.`);
  return value;
}

/** A JSON array of non-empty strings; unset or empty is none. */
function stringList(env: Env, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.length > 0)) {
    throw configError(`${name} must be a JSON array of non-empty strings.`);
  }
  return value as string[];
}

/**
 * What the construct configures the approvals inbox with (`ApprovalsInbox`), read from its
 * environment once. A value that does not parse is a configuration error naming the variable.
 */
import type { Env } from '../config';
import { INBOX_ENV, OWNER_PATTERN } from '../construct-contract';
import { configError } from '../errors';

/** One handler the inbox serves. */
export interface InboxHandler {
  readonly owner: string;
  /** Its approvals table. */
  readonly table: string;
  /** Its tools, with the description the page shows. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly description?: string }>;
}

export interface InboxSettings {
  readonly issuer: string;
  readonly clientId: string;
  /** Accepted `aud` values: the client id, and the audience when one was given. */
  readonly audiences: readonly string[];
  readonly scopes: string;
  readonly groupsClaim: string;
  /** `https://host` (no path): the redirect URI is `<origin>/`, and decisions must come from it. */
  readonly origin: string;
  readonly handlers: readonly InboxHandler[];
  /** Owner to the groups that may decide its approvals; `*` is every signed-in user. */
  readonly approvers: Readonly<Record<string, readonly string[]>>;
  /** Set when known at synth; else read from the issuer's discovery document. */
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  /** Where signing out ends the provider's session, when known at synth; else from the discovery document, if it names one. */
  readonly endSessionEndpoint?: string;
}

/** Any signed-in user. */
export const EVERYONE = '*';

export function inboxSettings(env: Env = process.env): InboxSettings {
  const issuer = required(env, INBOX_ENV.issuer);
  const clientId = required(env, INBOX_ENV.clientId);
  const origin = required(env, INBOX_ENV.origin).replace(/\/+$/, '');
  for (const [name, value] of [[INBOX_ENV.issuer, issuer], [INBOX_ENV.origin, origin]] as const) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw configError(`${name} must be a URL.`);
    }
    if (name === INBOX_ENV.origin && url.origin !== value) throw configError(`${name} must be an origin (scheme, host and port; no path).`);
  }
  const handlers = json(env, INBOX_ENV.handlers) as InboxHandler[];
  if (!Array.isArray(handlers) || handlers.length === 0 || !handlers.every(isHandler)) {
    throw configError(`${INBOX_ENV.handlers} must be a JSON array of { owner, table, tools: [{ name, description? }] }, at least one.`);
  }
  const approvers = json(env, INBOX_ENV.approvers) as Record<string, string[]>;
  const groupLists = approvers && typeof approvers === 'object' ? Object.values(approvers) : [];
  if (!groupLists.every((groups) => Array.isArray(groups) && groups.every((g) => typeof g === 'string'))) {
    throw configError(`${INBOX_ENV.approvers} must be a JSON object of owner to a list of group names.`);
  }
  const audience = env[INBOX_ENV.audience]?.trim();
  return {
    issuer: issuer.replace(/\/+$/, ''),
    clientId,
    // The page sends the ID token (whose `aud` is the client); an access token may name `audience`.
    audiences: [...new Set([clientId, ...(audience ? [audience] : [])])],
    scopes: env[INBOX_ENV.scopes]?.trim() || 'openid email profile',
    groupsClaim: env[INBOX_ENV.groupsClaim]?.trim() || 'cognito:groups',
    origin,
    handlers,
    approvers,
    ...optionalUrl(env, INBOX_ENV.authorizationEndpoint, 'authorizationEndpoint'),
    ...optionalUrl(env, INBOX_ENV.tokenEndpoint, 'tokenEndpoint'),
    ...optionalUrl(env, INBOX_ENV.endSessionEndpoint, 'endSessionEndpoint'),
  };
}

function optionalUrl<K extends string>(env: Env, name: string, key: K): Partial<Record<K, string>> {
  const value = env[name]?.trim();
  if (!value) return {};
  try {
    new URL(value);
  } catch {
    throw configError(`${name} must be a URL.`);
  }
  return { [key]: value } as Partial<Record<K, string>>;
}

function isHandler(value: unknown): value is InboxHandler {
  const h = value as InboxHandler;
  return (
    typeof h === 'object' && h !== null && typeof h.owner === 'string' && OWNER_PATTERN.test(h.owner) && typeof h.table === 'string' &&
    Array.isArray(h.tools) && h.tools.every((t) => typeof t?.name === 'string')
  );
}

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw configError(`the approvals inbox needs ${name} to be set.`);
  return value;
}

function json(env: Env, name: string): unknown {
  try {
    return JSON.parse(required(env, name));
  } catch (error) {
    if (error instanceof SyntaxError) throw configError(`${name} must be JSON.`);
    throw error;
  }
}

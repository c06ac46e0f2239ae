import { configError } from '../errors';
import { HANDLER_OWNER } from '../names';

/** Options both built-in stores share. */
export interface StoreOptions {
  /**
   * The owner of the approvals this store creates; it claims only approvals of this owner.
   * @default 'handler'
   */
  readonly owner?: string;
  /** How long approvals and kept replies live, in seconds. @default 604800 (7 days) */
  readonly ttlSeconds?: number;
  /** The clock, epoch ms; tests move it forward to expire items. @default Date.now */
  readonly now?: () => number;
}

export const DEFAULT_APPROVAL_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Records per page of `listPage`: the default and the most. */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

export function resolveStoreOptions(options: StoreOptions | undefined): Required<StoreOptions> {
  const ttlSeconds = options?.ttlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw configError(`approval store \`ttlSeconds\` must be a positive number of seconds, got: ${ttlSeconds}.`);
  }
  const owner = options?.owner ?? HANDLER_OWNER;
  if (typeof owner !== 'string' || owner.length === 0) {
    throw configError(`approval store \`owner\` must be a non-empty string, got: ${JSON.stringify(owner)}.`);
  }
  return { ttlSeconds, now: options?.now ?? Date.now, owner };
}

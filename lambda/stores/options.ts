import { configError } from '../errors';
import { HANDLER_OWNER, OWNER_PATTERN } from '../construct-contract';

/** Options both built-in stores share. */
export interface StoreOptions {
  /**
   * Whose approvals and calls this store keeps: 1 to 64 characters of `A-Z a-z 0-9 _ . -`. The
   * DynamoDB store keeps them under keys of this owner (`approval#<owner>#...`), so it never sees
   * another owner's; the memory store keeps every owner's in one map and claims only this owner's.
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
  if (typeof owner !== 'string' || !OWNER_PATTERN.test(owner)) {
    throw configError(`approval store \`owner\` must be 1 to 64 characters of A-Z a-z 0-9 _ . -, got: ${JSON.stringify(owner)}.`);
  }
  return { ttlSeconds, now: options?.now ?? Date.now, owner };
}

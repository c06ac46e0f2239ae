/** Options both built-in stores share. */
export interface StoreOptions {
  /** How long approvals and kept replies live, in seconds. @default 604800 (7 days) */
  readonly ttlSeconds?: number;
  /** The clock, epoch ms; tests move it forward to expire items. @default Date.now */
  readonly now?: () => number;
}

export const DEFAULT_APPROVAL_TTL_SECONDS = 7 * 24 * 60 * 60;

export function resolveStoreOptions(options: StoreOptions | undefined): Required<StoreOptions> {
  const ttlSeconds = options?.ttlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError(`ttlSeconds must be a positive number of seconds, got: ${ttlSeconds}`);
  }
  return { ttlSeconds, now: options?.now ?? Date.now };
}

import { storeUnavailable } from '../errors';

/** Why a conditional write did not happen (the SDK's errors that the store expects and handles). */
export type WriteRefusal = 'condition' | 'too_large';

export type WriteOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: WriteRefusal };

/**
 * Runs one conditional write. A failed condition and an item grown past DynamoDB's size limit come
 * back as refusals for the caller to handle; every other failure (throttling, 5xx, network,
 * timeouts, a missing table) becomes a retryable `AdapterError`, so no raw SDK error escapes.
 */
export async function write<T>(operation: string, run: () => Promise<T>): Promise<WriteOutcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return { ok: false, refusal };
    throw storeUnavailable(operation, error);
  }
}

/** Runs one read (or an unconditional write); any failure becomes a retryable `AdapterError`. */
export async function read<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw storeUnavailable(operation, error);
  }
}

function refusalOf(error: unknown): WriteRefusal | undefined {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'ConditionalCheckFailedException') return 'condition';
  // DynamoDB: "Item size to update has exceeded the maximum allowed size" (UpdateItem).
  const message = (error as { message?: unknown } | null)?.message;
  if (name === 'ValidationException' && typeof message === 'string' && /maximum allowed size/i.test(message)) {
    return 'too_large';
  }
  return undefined;
}

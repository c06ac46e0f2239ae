/**
 * Runs `work(item)` for each item, at most `limit` at once, starting none once `stop` is aborted.
 * `work` must not throw.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  stop: AbortSignal,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop.aborted) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Batch parallelism (figure 4), in a child process with stdout on /dev/null. */
import { runChild } from './lib/child';
import { median } from './lib/stats';
import type { ParallelConfig, ParallelResult } from './children/parallel';

export async function measureParallel(childScript: string, config: ParallelConfig): Promise<Record<string, number>> {
  const { result } = await runChild<ParallelResult>(childScript, [JSON.stringify(config)], {
    env: { BENCH_STORE: 'memory', NODE_OPTIONS: '' },
  });
  return Object.fromEntries(Object.entries(result).map(([name, ratios]) => [name, median(ratios)]));
}

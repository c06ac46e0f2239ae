/**
 * Throughput (issue 5, figure 2): envelopes per second through each handler, medians over
 * interleaved runs in one child process whose stdout is /dev/null for every variant.
 */
import { runChild } from './lib/child';
import { median } from './lib/stats';
import type { ThroughputConfig, ThroughputResult } from './children/throughput';

export interface ThroughputFigure {
  readonly runs: number;
  /** Median envelopes per second. */
  readonly perSecond: number;
  readonly min: number;
  readonly max: number;
}

export async function measureThroughput(
  childScript: string,
  config: ThroughputConfig,
  nodeArgs: readonly string[] = [],
): Promise<Record<string, ThroughputFigure>> {
  const { result } = await runChild<ThroughputResult>(childScript, [JSON.stringify(config)], {
    nodeArgs: ['--expose-gc', ...nodeArgs],
    env: { BENCH_STORE: 'memory', NODE_OPTIONS: '' },
    timeoutMs: 600_000,
  });
  return Object.fromEntries(
    Object.entries(result).map(([name, runs]) => [
      name,
      { runs: runs.length, perSecond: median(runs), min: Math.min(...runs), max: Math.max(...runs) },
    ]),
  );
}

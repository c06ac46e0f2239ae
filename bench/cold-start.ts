/**
 * Cold start (figure 1): fresh `node` processes, each loading one bundle and handling a
 * first SQS batch of one call, in-memory stores on both sides (no network). Variants run
 * interleaved (round-robin, rotated each round). Every child runs with `--enable-source-maps`, as
 * the construct sets NODE_OPTIONS for its source-mapped bundles.
 */
import { runChild } from './lib/child';
import { median, rotate } from './lib/stats';
import type { ColdStartSample } from './children/cold-start';

export interface ColdStartVariant {
  readonly name: string;
  readonly bundle: string;
}

export interface ColdStartFigure {
  readonly samples: number;
  /** Process start to first batch handled, median ms. */
  readonly totalMs: number;
  /** require() + first batch, median ms. */
  readonly handlerMs: number;
  readonly loadMs: number;
  readonly firstBatchMs: number;
  readonly bootMs: number;
}

export async function measureColdStart(
  childScript: string,
  variants: readonly ColdStartVariant[],
  processes: number,
): Promise<Record<string, ColdStartFigure>> {
  const samples = new Map<string, ColdStartSample[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < processes; round++) {
    for (const variant of rotate(variants, round)) {
      const { result } = await runChild<ColdStartSample>(childScript, [variant.bundle], {
        nodeArgs: ['--enable-source-maps'],
        env: { BENCH_STORE: 'memory', NODE_OPTIONS: '' },
      });
      if (result.failures !== 0) throw new Error(`cold start of ${variant.name}: the first batch failed`);
      samples.get(variant.name)!.push(result);
    }
  }
  const figures: Record<string, ColdStartFigure> = {};
  for (const [name, list] of samples) {
    figures[name] = {
      samples: list.length,
      totalMs: median(list.map((s) => s.totalMs)),
      handlerMs: median(list.map((s) => s.loadMs + s.firstBatchMs)),
      loadMs: median(list.map((s) => s.loadMs)),
      firstBatchMs: median(list.map((s) => s.firstBatchMs)),
      bootMs: median(list.map((s) => s.bootMs)),
    };
  }
  return figures;
}

/**
 * Synth (issue 5, figure 5): an app with 10 ToolHandlers over one entry against one with 1, each
 * synthesized by a fresh `node` process (the app bundled by esbuild, aws-cdk-lib from node_modules;
 * NodejsFunction bundles with the local esbuild). Runs alternate 1 and 10.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runChild } from './lib/child';
import { median, rotate } from './lib/stats';
import type { SynthSample } from './synth-app';

export interface SynthFigure {
  readonly count: number;
  readonly functions: number;
  /** Median spawn-to-exit ms of the app process. */
  readonly processMs: number;
  /** Median ms of construction + synth inside the process. */
  readonly synthMs: number;
  readonly runs: number;
}

export async function measureSynth(
  appScript: string,
  counts: readonly number[],
  rounds: number,
  env: Record<string, string>,
): Promise<Record<number, SynthFigure>> {
  const samples = new Map<number, Array<{ wall: number; sample: SynthSample }>>(counts.map((c) => [c, []]));
  for (let round = 0; round < rounds; round++) {
    for (const count of rotate(counts, round)) {
      const outdir = mkdtempSync(path.join(os.tmpdir(), 'bench-synth-'));
      try {
        const { result, wallMs } = await runChild<SynthSample>(appScript, [String(count), outdir], {
          env: { CDK_DISABLE_CLI_TELEMETRY: 'true', NODE_OPTIONS: '', ...env },
          timeoutMs: 300_000,
        });
        samples.get(count)!.push({ wall: wallMs, sample: result });
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    }
  }
  const figures: Record<number, SynthFigure> = {};
  for (const [count, list] of samples) {
    figures[count] = {
      count,
      functions: list[0]?.sample.functions ?? 0,
      processMs: median(list.map((s) => s.wall)),
      synthMs: median(list.map((s) => s.sample.synthMs)),
      runs: list.length,
    };
  }
  return figures;
}

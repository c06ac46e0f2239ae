/**
 * Synth (figure 5): an app with 10 ToolHandlers over one entry against one with 1, each
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

export interface ManifestSynthFigure {
  /** Fastest ms of construction + synth with the tools manifest step. */
  readonly withManifestMs: number;
  /** The same without it (context `cdk-tool-handler:skipManifest`). */
  readonly withoutManifestMs: number;
  /** Medians, for reference: on a shared machine they move with other load. */
  readonly medianWithMs: number;
  readonly medianWithoutMs: number;
  readonly runs: number;
}

/**
 * The sample (1 ToolHandler over bin/tools.ts) synthesized with and without the synth-time tools
 * manifest step, alternating, each in a fresh process (so the per-process manifest cache is cold).
 * The figure takes the fastest run of each: the step costs a few hundred ms, and on a shared machine
 * other load adds seconds at random to either side, never takes time away.
 */
export async function measureManifestSynth(appScript: string, rounds: number, env: Record<string, string>): Promise<ManifestSynthFigure> {
  const samples: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (let round = 0; round < rounds; round++) {
    for (const variant of rotate(['with', 'without'] as const, round)) {
      const outdir = mkdtempSync(path.join(os.tmpdir(), 'bench-synth-'));
      try {
        const args = ['1', outdir, ...(variant === 'without' ? ['skip-manifest'] : [])];
        const { result } = await runChild<SynthSample>(appScript, args, {
          env: { CDK_DISABLE_CLI_TELEMETRY: 'true', NODE_OPTIONS: '', ...env },
          timeoutMs: 300_000,
        });
        samples[variant].push(result.synthMs);
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    }
  }
  return {
    withManifestMs: Math.min(...samples.with),
    withoutManifestMs: Math.min(...samples.without),
    medianWithMs: median(samples.with),
    medianWithoutMs: median(samples.without),
    runs: rounds,
  };
}

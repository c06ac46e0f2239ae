/**
 * The synth figure's CDK app: `count` ToolHandlers over one entry (the sample's tools module), in
 * one stack, synthesized to `outdir`. Reports ms from before `new App()` to after `app.synth()`
 * (bundling included; loading aws-cdk-lib is not).
 * argv: <count> <outdir> [skip-manifest]   (skip-manifest: without the synth-time tools manifest step)
 */
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { App, Stack } from 'aws-cdk-lib';
import { ToolHandler } from '../lib';
import { SKIP_MANIFEST_CONTEXT } from '../lib/bundling/read-tool-manifest';
import { runMain } from './lib/report';
import { ROOT } from './lib/paths';

export interface SynthSample {
  readonly count: number;
  readonly synthMs: number;
  readonly functions: number;
}

runMain(async (): Promise<SynthSample> => {
  const count = Number(process.argv[2]);
  const outdir = process.argv[3];
  const skipManifest = process.argv[4] === 'skip-manifest';
  const entry = path.join(ROOT, 'bin', 'tools.ts');
  const started = performance.now();
  const app = new App({ outdir, context: skipManifest ? { [SKIP_MANIFEST_CONTEXT]: true } : {} });
  const stack = new Stack(app, 'BenchSynth', { env: { account: '123456789012', region: 'us-east-1' } });
  for (let i = 0; i < count; i++) {
    new ToolHandler(stack, `Tools${i}`, { entry, tools: ['add', 'refund'] });
  }
  const assembly = app.synth();
  const synthMs = performance.now() - started;
  const template = assembly.getStackByName('BenchSynth').template as { Resources: Record<string, { Type: string }> };
  const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function').length;
  return { count, synthMs, functions };
});

/**
 * Batch parallelism: one SQS batch of 10 calls of a tool that takes 100 ms; wall time / 100 ms.
 * 1.0 means all ten ran at once; 10 means one after another. Variants alternate, a fresh handler per run.
 * argv: JSON { variants: {name, bundle}[], rounds, toolMs, batchSize }
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { callBody, lambdaContext, sqsEvent, sqsRecord } from '../lib/events';
import { runMain } from '../lib/report';
import { rotate } from '../lib/stats';

export interface ParallelConfig {
  readonly variants: ReadonlyArray<{ readonly name: string; readonly bundle: string }>;
  readonly rounds: number;
  readonly toolMs: number;
  readonly batchSize: number;
}

/** wall / toolMs of each run, per variant. */
export type ParallelResult = Record<string, number[]>;

type Handler = (event: SQSEvent, context: unknown) => Promise<{ batchItemFailures: unknown[] }>;

runMain(async (): Promise<ParallelResult> => {
  const config = JSON.parse(process.argv[2]) as ParallelConfig;
  const load = createRequire(__filename);
  const modules = new Map(config.variants.map((v) => [v.name, load(v.bundle) as { createHandler: () => Handler }]));
  const result: ParallelResult = Object.fromEntries(config.variants.map((v) => [v.name, []]));
  // Round 0 warms up (module code, zod schemas) and is not counted.
  for (let round = 0; round <= config.rounds; round++) {
    for (const variant of rotate(config.variants, round)) {
      const handler = modules.get(variant.name)!.createHandler();
      const records: SQSRecord[] = [];
      for (let r = 0; r < config.batchSize; r++) {
        const id = `${variant.name}-${round}-${r}`;
        records.push(sqsRecord(`msg-${id}`, callBody('sleep', { ms: config.toolMs }, `run-${id}`, `call-${id}`)));
      }
      const started = performance.now();
      const response = await handler(sqsEvent(records), lambdaContext());
      const wall = performance.now() - started;
      if (response.batchItemFailures.length !== 0) throw new Error(`${variant.name}: a sleep call failed`);
      if (round > 0) result[variant.name].push(wall / config.toolMs);
    }
  }
  return result;
});

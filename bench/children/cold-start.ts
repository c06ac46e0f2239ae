/**
 * One cold start: this process is fresh. Loads a handler bundle and handles a first SQS batch of one
 * call. Reports ms since the process began (performance.timeOrigin) at each step.
 * argv: <bundle> <tool: noop | none>
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { callBody, lambdaContext, sqsEvent, sqsRecord } from '../lib/events';
import { runMain } from '../lib/report';

export interface ColdStartSample {
  /** Node's own start, up to this script's first line. */
  readonly bootMs: number;
  /** require() of the bundle. */
  readonly loadMs: number;
  /** The first batch. */
  readonly firstBatchMs: number;
  /** Process start to the first batch handled. */
  readonly totalMs: number;
  readonly failures: number;
}

runMain(async (): Promise<ColdStartSample> => {
  const bundle = process.argv[2];
  const event = sqsEvent([sqsRecord('msg-cold-1', callBody('noop', {}, 'run-cold', 'call-cold-1'))]);
  const context = lambdaContext();
  const load = createRequire(__filename);
  const t0 = performance.now();
  const mod = load(bundle) as { handler: (event: unknown, context: unknown) => Promise<{ batchItemFailures: unknown[] }> };
  const t1 = performance.now();
  const response = await mod.handler(event, context);
  const t2 = performance.now();
  return { bootMs: t0, loadMs: t1 - t0, firstBatchMs: t2 - t1, totalMs: t2, failures: response.batchItemFailures.length };
});

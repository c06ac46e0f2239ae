/**
 * One variant's throughput host: a `node` process holding one handler, as a Lambda container does,
 * with stdout on /dev/null (the runtime logs one JSON line per call; the Powertools handlers log the
 * same). The coordinator (bench/throughput.ts) runs one host per variant and has them take turns,
 * a slice of batches at a time, over IPC:
 *   { round }          a fresh handler (fresh in-memory stores) and the round's batches; answers {}
 *   { from, to }       runs batches [from, to) and answers { seconds } (the run alone, timed here)
 * argv: JSON { variant: {name, bundle?}, batches, batchSize, barePasses? }
 *   a variant without a bundle is the bare loop: JSON.parse of each body and a call of the tool.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { SQSEvent } from 'aws-lambda';
import { lambdaContext, noopBatches } from '../lib/events';

export interface ThroughputHostConfig {
  readonly variant: { readonly name: string; readonly bundle?: string };
  readonly batches: number;
  readonly batchSize: number;
  /** Passes over each slice for the bare loop, which is too fast to time over one pass. @default 1 */
  readonly barePasses?: number;
}

export type ThroughputRequest = { readonly round: number } | { readonly from: number; readonly to: number };
export type ThroughputAnswer = { readonly seconds?: number; readonly error?: string };

type Handler = (event: SQSEvent, context: unknown) => Promise<{ batchItemFailures: unknown[] }>;

const BARE_TOOLS: Record<string, (args: unknown) => unknown> = { noop: () => null };

/** The bare loop: what handling a batch costs with no library at all. */
function bareHandler(): Handler {
  return async (event) => {
    const batchItemFailures: Array<{ itemIdentifier: string }> = [];
    for (const record of event.Records) {
      try {
        const envelope = JSON.parse(record.body) as { tool: string; args: unknown };
        await BARE_TOOLS[envelope.tool](envelope.args);
      } catch {
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

const config = JSON.parse(process.argv[2]) as ThroughputHostConfig;
const { variant } = config;
const createHandler: () => Handler = variant.bundle
  ? (createRequire(__filename)(variant.bundle) as { createHandler: () => Handler }).createHandler
  : bareHandler;
// Stateful handlers see every call once; the bare loop keeps no state and may see them again.
const passes = variant.bundle ? 1 : (config.barePasses ?? 1);
const context = lambdaContext(900_000);
let handler: Handler | undefined;
let batches: SQSEvent[] = [];

async function answer(request: ThroughputRequest): Promise<ThroughputAnswer> {
  if ('round' in request) {
    handler = createHandler();
    batches = noopBatches(`${variant.name}-${request.round}`, config.batches, config.batchSize);
    return {};
  }
  const started = performance.now();
  for (let pass = 0; pass < passes; pass++) {
    for (let b = request.from; b < request.to; b++) {
      const response = await handler!(batches[b], context);
      if (response.batchItemFailures.length !== 0) throw new Error(`${variant.name}: a no-op call failed`);
    }
  }
  return { seconds: (performance.now() - started) / 1000 };
}

process.on('message', (request: ThroughputRequest) => {
  answer(request).then(
    (reply) => process.send!(reply),
    (error: unknown) => process.send!({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));

/**
 * Per-envelope overhead: SQS batches of no-op tool calls through each handler, in this one process,
 * with stdout on /dev/null (the runtime logs one JSON line per call; the Powertools handlers log the
 * same). Variants alternate within each round, the order rotated every round; every run gets a fresh
 * handler (fresh in-memory stores) and a GC before it starts.
 * argv: JSON { variants: {name, bundle?}[], rounds, warmupRounds, batches, batchSize }
 *   a variant without a bundle is the bare loop: JSON.parse of each body and a call of the tool.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { SQSEvent } from 'aws-lambda';
import { lambdaContext, noopBatches } from '../lib/events';
import { runMain } from '../lib/report';
import { rotate } from '../lib/stats';

export interface ThroughputConfig {
  readonly variants: ReadonlyArray<{ readonly name: string; readonly bundle?: string }>;
  readonly rounds: number;
  readonly warmupRounds: number;
  readonly batches: number;
  readonly batchSize: number;
  /** Passes over the batches for the bare loop, which is too fast to time over one pass. @default 1 */
  readonly barePasses?: number;
}

/** Envelopes per second of each measured run, per variant. */
export type ThroughputResult = Record<string, number[]>;

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

runMain(async (): Promise<ThroughputResult> => {
  const config = JSON.parse(process.argv[2]) as ThroughputConfig;
  const load = createRequire(__filename);
  const factories = new Map<string, () => Handler>();
  for (const variant of config.variants) {
    if (!variant.bundle) {
      factories.set(variant.name, bareHandler);
      continue;
    }
    const mod = load(variant.bundle) as { createHandler: () => Handler };
    factories.set(variant.name, () => mod.createHandler());
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  const result: ThroughputResult = Object.fromEntries(config.variants.map((v) => [v.name, []]));
  for (let round = 0; round < config.warmupRounds + config.rounds; round++) {
    for (const variant of rotate(config.variants, round)) {
      const handler = factories.get(variant.name)!();
      const batches = noopBatches(`${variant.name}-${round}`, config.batches, config.batchSize);
      // Stateful handlers see every call once; the bare loop keeps no state and may see them again.
      const passes = variant.bundle ? 1 : (config.barePasses ?? 1);
      const context = lambdaContext(900_000);
      gc?.();
      const started = performance.now();
      for (let pass = 0; pass < passes; pass++) {
        for (const batch of batches) {
          const response = await handler(batch, context);
          if (response.batchItemFailures.length !== 0) throw new Error(`${variant.name}: a no-op call failed`);
        }
      }
      const seconds = (performance.now() - started) / 1000;
      if (round >= config.warmupRounds) result[variant.name].push((passes * config.batches * config.batchSize) / seconds);
    }
  }
  return result;
});

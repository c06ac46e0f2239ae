/**
 * The job both Powertools handlers do, as a user would write it with Powertools for AWS Lambda
 * instead of this library: an SQS batch with partial failures (@aws-lambda-powertools/batch), the
 * envelope and the same zod schemas for args (@aws-lambda-powertools/parser), and duplicate
 * suppression on DynamoDB keyed by (run_id, call_id), with the tool and args checked against the
 * first delivery (@aws-lambda-powertools/idempotency). One JSON log line per record, with the fields
 * the runtime logs (Powertools Logger is not installed here; a plain line costs no more than it).
 *
 * Not done here (the runtime does it): approvals, per-tool deadlines, FIFO groups, EventBridge and
 * direct invokes, the reply bus.
 *
 * `BENCH_STORE=memory` swaps in an in-memory persistence layer at run time; the size figure bundles
 * with `process.env.BENCH_STORE` defined as "dynamo", which drops that branch.
 */
import { BatchProcessor, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { MemoryPersistenceLayer } from './memory-persistence';
import { AddInput, NoopInput, RefundInput, runAdd, runNoop, runRefund, runSleep, SleepInput } from './schemas';

/** A call's envelope, as a Powertools user would write it in zod. */
const Id = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\s\p{Cc}]+$/u);
export const CallEnvelope = z.strictObject({
  tool: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/),
  args: z.record(z.string(), z.unknown()).default({}),
  run_id: Id.optional(),
  call_id: Id.optional(),
});
export type CallEnvelope = z.output<typeof CallEnvelope>;

interface ToolEntry {
  readonly input: z.ZodType;
  readonly run: (args: any) => unknown;
}
const TOOLS: Record<string, ToolEntry> = {
  add: { input: AddInput, run: runAdd },
  refund: { input: RefundInput, run: runRefund },
  noop: { input: NoopInput, run: runNoop },
  sleep: { input: SleepInput, run: (args) => runSleep(args) },
};

export interface PowertoolsHandlerOptions {
  /** The DynamoDB client of the persistence layer (the dynamo bench counts its requests). */
  readonly client?: DynamoDBClient;
  /** @default IDEMPOTENCY_TABLE */
  readonly tableName?: string;
}

export type PowertoolsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export function persistenceLayer(options: PowertoolsHandlerOptions): BasePersistenceLayer {
  return process.env.BENCH_STORE === 'memory'
    ? new MemoryPersistenceLayer()
    : new DynamoDBPersistenceLayer({
        tableName: options.tableName ?? process.env.IDEMPOTENCY_TABLE ?? 'idempotency',
        ...(options.client ? { awsSdkV3Client: options.client } : {}),
      });
}

/**
 * The handler, given the batch processor and how a record's body becomes the envelope (parsed by
 * the processor's parser integration, or by `parse` in the record handler).
 */
export function createPowertoolsHandler(
  options: PowertoolsHandlerOptions,
  processor: BatchProcessor,
  envelopeOf: (record: SQSRecord) => CallEnvelope,
): PowertoolsHandler {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: '[run_id, call_id]',
    // The same ids with another tool or args are refused, as the runtime refuses them.
    payloadValidationJmesPath: '[tool, args]',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: 7 * 24 * 60 * 60,
  });
  const runCall = makeIdempotent(
    async (call: { run_id: string; call_id: string; tool: string; args: Record<string, unknown> }, args: unknown) => {
      const result = await TOOLS[call.tool].run(args);
      return result === undefined ? null : result;
    },
    { persistenceStore: persistenceLayer(options), config },
  );

  const recordHandler = async (record: SQSRecord) => {
    const started = Date.now();
    const where = { message_id: record.messageId, source: `sqs:${record.eventSourceARN}` };
    let line: Record<string, unknown> = { level: 'INFO', message: 'tool call', tool: null, run_id: null, call_id: null, approval_id: null };
    try {
      const call = envelopeOf(record);
      const runId = call.run_id ?? `run_${record.messageId}`;
      const callId = call.call_id ?? `call_${record.messageId}`;
      line = { ...line, tool: call.tool, run_id: runId, call_id: callId };
      const tool = TOOLS[call.tool];
      if (!tool) throw new Error(`Tool ${call.tool} is unknown to this handler.`);
      const args = tool.input.parse(call.args);
      const result = await runCall({ run_id: runId, call_id: callId, tool: call.tool, args: call.args }, args);
      log({ ...line, ...where, status: 'ok', duration_ms: Date.now() - started });
      return result;
    } catch (error) {
      const { name, message } = error as Error;
      log({ ...line, level: 'ERROR', ...where, error: { type: name, message }, duration_ms: Date.now() - started });
      throw error;
    }
  };

  return async (event, context) => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
  };
}

function log(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

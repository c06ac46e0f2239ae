/**
 * `callTool`: a Lambda durable function calls a tool through the handler's queue and waits, without
 * polling and without paying for the wait, for its result, approval included (docs/flows.md). Built
 * on the durable SDK's `waitForCallback`, whose submitter runs at least once: the call's ids are
 * derived from the callback id, so a submitter that runs again sends the same call, which the
 * handler answers once (duplicate calls).
 */
import { createHash } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { JsonObject } from '../json';
import type { OkReply } from '../reply';
import { sqsClient, sqsSdk } from '../sqs-client';

/** How long to wait, as the durable SDK takes it. */
export interface WaitDuration {
  readonly days?: number;
  readonly hours?: number;
  readonly minutes?: number;
  readonly seconds?: number;
}

/**
 * What `callTool` needs of the durable function's context (`DurableContext` of
 * `@aws/durable-execution-sdk-js` is one).
 */
export interface CallbackContext {
  waitForCallback<T = string>(
    name: string | undefined,
    submitter: (callbackId: string, context: any) => Promise<void>,
    config?: { timeout?: WaitDuration },
  ): PromiseLike<T>;
}

export interface CallToolOptions {
  /** The tool queue's URL (`handler.queue.queueUrl`, passed in the function's environment). */
  readonly queue: string;
  /** The tool to call. */
  readonly tool: string;
  /** Its args. @default {} */
  readonly args?: JsonObject;
  /** The call's `run_id`. @default - derived from the callback id */
  readonly runId?: string;
  /** The call's `call_id`. @default - derived from the callback id */
  readonly callId?: string;
  /** The step's name in the execution's history. @default `tool:<tool>` */
  readonly name?: string;
  /** How long to wait: an approval waits at most the approval TTL, then the call fails as expired. @default - the SDK's (none) */
  readonly timeout?: WaitDuration;
  /** The SQS client. @default - one per container, in `AWS_REGION`; the SDK honours `AWS_ENDPOINT_URL_SQS` */
  readonly sqs?: SQSClient;
}

/**
 * The call failed as the handler said: `error` is `ToolHandler.<ErrorName>`
 * (`ToolHandler.ApprovalDenied`, `ToolHandler.ApprovalExpired`, ...), the message its cause.
 */
export class ToolCallFailed extends Error {
  override readonly name = 'ToolCallFailed';
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Calls `tool` through the handler's queue and resolves to its `ok` reply; throws `ToolCallFailed`
 * naming the handler's error (a denial, an expiry, a failure retrying could not fix).
 *
 * @example
 * import { withDurableExecution } from '@aws/durable-execution-sdk-js';
 * import { callTool } from 'cdk-tool-handler/durable';
 *
 * export const handler = withDurableExecution(async (event: { orderId: string }, ctx) => {
 *   const reply = await callTool(ctx, { queue: process.env.TOOL_QUEUE_URL!, tool: 'refund', args: { orderId: event.orderId } });
 *   return reply.result;
 * });
 */
export async function callTool(ctx: CallbackContext, options: CallToolOptions): Promise<OkReply> {
  let text: unknown;
  try {
    text = await ctx.waitForCallback<string>(
      options.name ?? `tool:${options.tool}`,
      async (callbackId) => {
        await send(options, callbackId);
      },
      options.timeout ? { timeout: options.timeout } : undefined,
    );
  } catch (error) {
    throw asToolCallFailed(error);
  }
  return JSON.parse(String(text)) as OkReply;
}

async function send(options: CallToolOptions, callbackId: string): Promise<void> {
  const sdk = sqsSdk();
  const client = options.sqs ?? sqsClient();
  const runId = options.runId ?? `dur_${hash('run', callbackId)}`;
  const callId = options.callId ?? `dur_${hash('call', callbackId)}`;
  const body = {
    tool: options.tool,
    args: options.args ?? {},
    run_id: runId,
    call_id: callId,
    reply_to: { kind: 'durable', callback_id: callbackId },
  };
  const fifo = options.queue.endsWith('.fifo');
  await client.send(
    new sdk.SendMessageCommand({
      QueueUrl: options.queue,
      MessageBody: JSON.stringify(body),
      // The same call sent again within five minutes is dropped by a FIFO queue itself.
      ...(fifo ? { MessageGroupId: runId, MessageDeduplicationId: hash('dedup', callbackId) } : {}),
    }),
  );
}

function hash(kind: string, callbackId: string): string {
  return createHash('sha256').update(kind).update('\0').update(callbackId).digest('base64url').slice(0, 43);
}

/** The durable SDK replaces a failure's error type; the handler's error name travels in its `errorData` too. */
function asToolCallFailed(error: unknown): unknown {
  const data = findErrorData(error);
  if (data === undefined) return error;
  try {
    const parsed = JSON.parse(data) as { error?: unknown; cause?: unknown };
    if (typeof parsed.error === 'string') return new ToolCallFailed(parsed.error, String(parsed.cause ?? ''));
  } catch {
    // Not the handler's: pass the error on as it came.
  }
  return error;
}

function findErrorData(error: unknown): string | undefined {
  for (let e = error as { errorData?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.errorData === 'string') return e.errorData;
  }
  return undefined;
}

import type { EventBridgeEvent } from 'aws-lambda';
import { AdapterError, ToolTimeout, ToolUsageError } from '../errors';
import { isJsonObject } from '../json';
import type { Redelivery } from '../executor';
import type { Reply } from '../reply';
import { asyncRetry, runEnvelope, type Invocation } from './invocation';
import { settle } from './settle';

export type ToolCallEvent = EventBridgeEvent<string, unknown>;

/** An EventBridge event (as a rule delivers it to Lambda). */
export function isEventBridgeEvent(event: unknown): event is ToolCallEvent {
  return isJsonObject(event) && 'detail-type' in event && 'source' in event && 'detail' in event;
}

/**
 * The envelope is the event's `detail`; Lambda's asynchronous retries handle a throw. The event's
 * `source` and `id` name the call's source and delivery: anything but a non-empty string there is
 * a `ToolUsageError` naming the field.
 */
export async function handleEventBridgeEvent(event: ToolCallEvent, invocation: Invocation): Promise<Reply> {
  const fields = event as unknown as Record<string, unknown>;
  for (const field of ['source', 'id']) {
    const value = fields[field];
    if (typeof value !== 'string' || value.length === 0) {
      throw new ToolUsageError(
        `Invalid EventBridge event: \`${field}\` must be a non-empty string, got ${value === null ? 'null' : typeof value}.`,
      );
    }
  }
  return handleOne(event.detail, event.id, `events:${event.source}`, invocation, asyncRetry(invocation));
}

/** Anything else is a direct invoke: the event is the envelope. */
export function handleDirectInvoke(event: unknown, requestId: string | undefined, invocation: Invocation): Promise<Reply> {
  return handleOne(event, requestId, 'lambda', invocation);
}

async function handleOne(
  payload: unknown,
  messageId: string | undefined,
  source: string,
  invocation: Invocation,
  redelivery?: Redelivery,
): Promise<Reply> {
  if (invocation.budgetMs <= 0) {
    throw new ToolTimeout(`No time left to run the call: the deadline budget is ${invocation.budgetMs} ms.`);
  }
  const outcome = await runEnvelope(invocation, payload, { source, messageId, redelivery });
  const delivered = await settle(outcome, invocation.replies);
  if (!outcome.ok) throw outcome.error;
  if (!delivered) {
    throw new AdapterError('The call ran but its reply could not be published to the reply bus; a retry publishes the kept reply.', {
      retryable: true,
    });
  }
  return outcome.reply;
}

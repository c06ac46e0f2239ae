import type { EventBridgeEvent } from 'aws-lambda';
import { ToolUsageError } from '../errors';
import { isJsonObject } from '../json';
import type { Reply } from '../reply';
import { deliver, type Host } from './host';
import { asyncRetry } from './invocation';
import { replyOrThrow } from './finish-delivery';
import { RESULT_LIMITS } from '../result-offload';

export type ToolCallEvent = EventBridgeEvent<string, unknown>;

/**
 * An EventBridge event, as a rule delivers it to Lambda (`detail-type`, `source`, `detail`). The
 * envelope is the event's `detail`; its `source` and `id` name the call's source and delivery:
 * anything but a non-empty string there is a `ToolUsageError` naming the field. It answers the reply
 * and throws the error: Lambda's asynchronous retries, then the function's on-failure destination,
 * keep the event.
 */
export const eventBridgeHost: Host<ToolCallEvent, Reply> = {
  recognise(event) {
    if (!isJsonObject(event) || !('detail-type' in event && 'source' in event && 'detail' in event)) return undefined;
    for (const field of ['source', 'id']) {
      const value = event[field];
      if (typeof value !== 'string' || value.length === 0) {
        throw new ToolUsageError(
          `Invalid EventBridge event: \`${field}\` must be a non-empty string, got ${value === null ? 'null' : typeof value}.`,
        );
      }
    }
    return event as unknown as ToolCallEvent;
  },
  async answer(event, invocation) {
    const ended = await deliver(invocation, event.detail, `events:${event.source}`, event.id, { redelivery: asyncRetry(invocation), resultLimit: RESULT_LIMITS.bus });
    return replyOrThrow(ended, invocation.results);
  },
  outOfTime: (_event, error) => Promise.reject(error),
};

import type { Reply } from '../reply';
import { deliver, type Host } from './host';
import { replyOrThrow } from './finish-delivery';

/** A direct invoke as read: the event is the envelope; the request id names the delivery. */
export interface DirectInvoke {
  readonly event: unknown;
  readonly requestId: string | undefined;
}

/**
 * Anything no other host recognises is a direct invoke (a Step Functions task's payload too): the
 * event is the envelope; `message_id` is `context.awsRequestId`, stable across Lambda's
 * asynchronous retries. It answers the reply and throws the error.
 */
export const directHost: Host<DirectInvoke, Reply> = {
  recognise: (event, context) => ({ event, requestId: context?.awsRequestId }),
  async answer({ event, requestId }, invocation) {
    return replyOrThrow(await deliver(invocation, event, 'lambda', requestId), invocation.results);
  },
  outOfTime: (_invoke, error) => Promise.reject(error),
};

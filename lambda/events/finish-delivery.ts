import type { CallEnded } from '../delivery';
import { AdapterError } from '../errors';
import type { Reply } from '../reply';
import type { ResultDispatcher } from '../results/dispatch';

/**
 * Hands the outcome to every result target (results/dispatch.ts) and says whether the delivery is
 * done; anything else must be delivered again.
 */
export function finishDelivery(ended: CallEnded, results: ResultDispatcher): Promise<boolean> {
  return results.callEnded(ended);
}

/**
 * The answer of a host whose caller retries what throws (an EventBridge rule, a direct invoke): the
 * reply once every target has it, else the error.
 */
export async function replyOrThrow(ended: CallEnded, results: ResultDispatcher): Promise<Reply> {
  const delivered = await finishDelivery(ended, results);
  const { outcome } = ended;
  if (!outcome.ok) throw outcome.error;
  if (!delivered) {
    throw new AdapterError('The call ran but its reply could not be published to the reply bus; a retry publishes the kept reply.', {
      retryable: true,
    });
  }
  return outcome.reply;
}

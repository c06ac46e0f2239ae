import type { CallEnded } from '../delivery';
import { AdapterError, ApprovalDenied } from '../errors';
import { logWarning } from '../log';
import type { Reply } from '../reply';
import type { ReplyPublisher } from '../reply-bus';
import { replyEvent } from '../sinks/reply-event';

/**
 * Publishes the outcome to the reply bus, if any, and says whether the delivery is done: a reply
 * that reached the bus (or needs none), or an error that retrying cannot fix and that the bus
 * carried to the caller. Anything else must be delivered again.
 */
export async function finishDelivery(ended: CallEnded, replies: ReplyPublisher | undefined): Promise<boolean> {
  const { outcome } = ended;
  if (outcome.ok) return replies ? publish(replies, ended) : true;
  // A denial is final and recorded in the approval: retrying it into the dead-letter queue helps nobody.
  if (!replies) return outcome.error instanceof ApprovalDenied;
  const published = await publish(replies, ended);
  return published && !outcome.error.retryable;
}

/**
 * The answer of a host whose caller retries what throws (an EventBridge rule, a direct invoke): the
 * reply once the bus has it, else the error.
 */
export async function replyOrThrow(ended: CallEnded, replies: ReplyPublisher | undefined): Promise<Reply> {
  const delivered = await finishDelivery(ended, replies);
  const { outcome } = ended;
  if (!outcome.ok) throw outcome.error;
  if (!delivered) {
    throw new AdapterError('The call ran but its reply could not be published to the reply bus; a retry publishes the kept reply.', {
      retryable: true,
    });
  }
  return outcome.reply;
}

async function publish(replies: ReplyPublisher, ended: CallEnded): Promise<boolean> {
  const { outcome } = ended;
  try {
    const { reply, extras } = replyEvent(ended);
    await replies.publish(reply, extras);
    return true;
  } catch (error) {
    logWarning('publishing the reply failed; the delivery will be retried', {
      run_id: outcome.identity.runId ?? null,
      call_id: outcome.identity.callId ?? null,
      error: (error as Error).message,
    });
    return false;
  }
}

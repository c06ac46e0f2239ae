import { ApprovalDenied } from '../errors';
import type { EnvelopeOutcome } from '../handle-envelope';
import { logWarning } from '../log';
import { errorReply } from '../reply';
import type { ReplyPublisher } from '../reply-bus';

/**
 * Publishes the outcome to the reply bus, if any, and says whether the delivery is done: a reply
 * that reached the bus (or needs none), or an error that retrying cannot fix and that the bus
 * carried to the caller. Anything else must be delivered again.
 */
export async function settle(outcome: EnvelopeOutcome, replies: ReplyPublisher | undefined): Promise<boolean> {
  if (outcome.ok) return replies ? publish(replies, outcome.reply, outcome) : true;
  // A denial is final and recorded in the approval: retrying it into the dead-letter queue helps nobody.
  if (!replies) return outcome.error instanceof ApprovalDenied;
  const published = await publish(replies, errorReply(outcome.error, outcome.identity), outcome);
  return published && !outcome.error.retryable;
}

async function publish(
  replies: ReplyPublisher,
  reply: Parameters<ReplyPublisher['publish']>[0],
  outcome: EnvelopeOutcome,
): Promise<boolean> {
  try {
    await replies.publish(reply);
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

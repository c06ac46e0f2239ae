/**
 * A record refused by its tool's rate limit comes back when its window ends, not at the queue's
 * visibility timeout: its visibility is set to the error's `retry_after_s` (ChangeMessageVisibility,
 * which the construct's event source grants). The SQS client is loaded on that first use, so a
 * handler that is never rate limited never loads it.
 */
import type { CallEnded } from '../delivery';
import { RateLimited } from '../errors';
import { logWarning } from '../log';
import { sqsClient, sqsSdk } from '../sqs-client';
import type { ReceivedSqsRecord } from './sqs-records';

/** SQS's longest visibility timeout: 12 hours. */
const MAX_VISIBILITY_S = 43_200;

/** Sets the record's visibility to its rate limit's retry time; anything else, or a failure, leaves it as it is. */
export async function delayRetry(record: ReceivedSqsRecord, ended: CallEnded): Promise<void> {
  const { outcome } = ended;
  if (outcome.ok || !(outcome.error instanceof RateLimited)) return;
  // `arn:<partition>:sqs:<region>:<account>:<name>` as the queue's URL.
  const [, partition, service, region, account, name, extra] = String(record.eventSourceARN).split(':');
  try {
    if (service !== 'sqs' || extra !== undefined || typeof record.receiptHandle !== 'string') throw new TypeError('not an SQS record');
    const { ChangeMessageVisibilityCommand } = sqsSdk();
    await sqsClient().send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: `https://sqs.${region}.amazonaws.com${partition === 'aws-cn' ? '.cn' : ''}/${account}/${name}`,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: Math.min(outcome.error.retry_after_s, MAX_VISIBILITY_S),
      }),
    );
  } catch (error) {
    logWarning("a rate-limited record's visibility was not set: it comes back at the queue's visibility timeout", {
      message_id: record.messageId as string,
      error: (error as Error).message,
    });
  }
}

import type { SQSBatchResponse } from 'aws-lambda';
import type { CallEnded } from '../delivery';
import { logWarning } from '../log';
import { deliver, refuse, type Host } from './host';
import { sqsRedelivery, type Invocation } from './invocation';
import { forEachBounded } from './pool';
import { finishDelivery } from './finish-delivery';
import { delayRetry } from './sqs-visibility';
import { RESULT_LIMITS } from '../result-offload';
import { isFifoBatch, isFinalReceive, messageGroupOf, recordProblem, senderOf, sourceQueueOf, sqsRecordsOf, traceOfRecord, type ReceivedSqsRecord } from './sqs-records';

/**
 * An SQS batch (`{ Records }` from an event source mapping, or the array of records that EventBridge
 * Pipes delivers), answered with the records that failed (`batchItemFailures`); it never throws for a
 * batch it took. A zero budget fails every record, as retryable, without running anything.
 */
export const sqsHost: Host<readonly ReceivedSqsRecord[], SQSBatchResponse> = {
  recognise: sqsRecordsOf,
  answer: handleSqsBatch,
  async outOfTime(records, _error, invocation) {
    logWarning('no time left before the deadline: every record is failed for a retry', {
      records: records.length,
      budget_ms: invocation.budgetMs,
    });
    return failures(records, new Set());
  },
};

/**
 * Runs a batch and reports partial failures. Standard queues run records concurrently;
 * FIFO queues run each message group in order and stop a group at its first failure. No record
 * starts after the deadline, and the answer is returned by `invocation.returnBy`: a record whose
 * call had not ended by then is reported failed, but one whose tool returned counts as done even if
 * its reply was still being published (running it again would be worse).
 */
async function handleSqsBatch(records: readonly ReceivedSqsRecord[], invocation: Invocation): Promise<SQSBatchResponse> {
  /** Delivered: a final outcome that needs no retry. */
  const succeeded = new Set<ReceivedSqsRecord>();
  /** The call ended well and its reply is being published. */
  const publishing = new Set<ReceivedSqsRecord>();
  const run = async (record: ReceivedSqsRecord) => {
    const ended = await handleRecord(record, invocation);
    if (ended.outcome.ok) publishing.add(record);
    const delivered = await finishDelivery(ended, invocation.results);
    publishing.delete(record);
    if (delivered) succeeded.add(record);
    else await delayRetry(record, ended);
  };
  const work = isFifoBatch(records)
    ? forEachBounded(groupsOf(records), invocation.concurrency, invocation.deadline.signal, async (group) => {
        for (const record of group) {
          if (invocation.deadline.signal.aborted) return;
          await run(record);
          if (!succeeded.has(record)) return;
        }
      })
    : forEachBounded(records, invocation.concurrency, invocation.deadline.signal, run);
  await waitAtMostUntil(work, invocation.returnBy);
  for (const record of publishing) {
    succeeded.add(record);
    logWarning('the reply was still being published when the invocation had to return; the record counts as done', {
      message_id: record.messageId,
    });
  }
  return failures(records, succeeded);
}

function failures(records: readonly ReceivedSqsRecord[], succeeded: ReadonlySet<ReceivedSqsRecord>): SQSBatchResponse {
  return {
    batchItemFailures: records
      .filter((record) => !succeeded.has(record))
      .map((record) => ({ itemIdentifier: record.messageId as string })),
  };
}

function handleRecord(record: ReceivedSqsRecord, invocation: Invocation): Promise<CallEnded> {
  const messageId = record.messageId as string;
  const problem = recordProblem(record);
  if (problem) return Promise.resolve(refuse(problem, {}, 'sqs', messageId));
  const source = `sqs:${sourceQueueOf(record)}`;
  return deliver(invocation, record.body, source, messageId, {
    redelivery: sqsRedelivery(source, messageId),
    caller: senderOf(record),
    finalAttempt: isFinalReceive(record, invocation.maxReceiveCount),
    trace: traceOfRecord(record),
    resultLimit: RESULT_LIMITS.bus,
  });
}

/** Waits for `work`, but not past `epochMs`. */
async function waitAtMostUntil(work: Promise<void>, epochMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, epochMs - Date.now()));
  });
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function groupsOf(records: readonly ReceivedSqsRecord[]): ReceivedSqsRecord[][] {
  const groups = new Map<string, ReceivedSqsRecord[]>();
  for (const record of records) {
    const id = messageGroupOf(record);
    const group = groups.get(id);
    if (group) group.push(record);
    else groups.set(id, [record]);
  }
  return [...groups.values()];
}

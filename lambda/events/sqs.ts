import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processEnvelope } from '../handle-envelope';
import { logWarning } from '../log';
import type { Invocation } from './invocation';
import { forEachBounded } from './pool';
import { settle } from './settle';

/** An SQS batch; `{ Records: [] }` is an empty one. */
export function isSqsEvent(event: unknown): event is SQSEvent {
  const records = (event as Partial<SQSEvent> | null)?.Records;
  return Array.isArray(records) && records.every((record) => record?.eventSource === 'aws:sqs');
}

/**
 * Runs a batch and reports partial failures (§6). Standard queues run records concurrently;
 * FIFO queues run each message group in order and stop a group at its first failure. Whatever has
 * not succeeded by the deadline is reported failed; this never throws.
 */
export async function handleSqsBatch(event: SQSEvent, invocation: Invocation): Promise<SQSBatchResponse> {
  const records = event.Records;
  const succeeded = new Set<SQSRecord>();
  if (invocation.budgetMs <= 0) {
    logWarning('no time left before the deadline: every record is failed for a retry', {
      records: records.length,
      budget_ms: invocation.budgetMs,
    });
  } else {
    const run = async (record: SQSRecord) => {
      if (await handleRecord(record, invocation)) succeeded.add(record);
    };
    const work = isFifo(records)
      ? forEachBounded(groupsOf(records), invocation.concurrency, invocation.signal, async (group) => {
          for (const record of group) {
            if (invocation.signal.aborted) return;
            await run(record);
            if (!succeeded.has(record)) return;
          }
        })
      : forEachBounded(records, invocation.concurrency, invocation.signal, run);
    await Promise.race([work, invocation.expired]);
  }
  return {
    batchItemFailures: records.filter((record) => !succeeded.has(record)).map((record) => ({ itemIdentifier: record.messageId })),
  };
}

async function handleRecord(record: SQSRecord, invocation: Invocation): Promise<boolean> {
  const outcome = await processEnvelope(invocation.executor, record.body, {
    tools: invocation.allowed,
    messageId: record.messageId,
    source: `sqs:${record.eventSourceARN}`,
    deadline: invocation.deadline,
    invocationEnd: invocation.invocationEnd,
    deadlineSignal: invocation.signal,
  });
  // A record that finished after the deadline was already reported failed.
  return !invocation.signal.aborted && (await settle(outcome, invocation.replies));
}

function isFifo(records: readonly SQSRecord[]): boolean {
  return records.length > 0 && records[0].eventSourceARN?.endsWith('.fifo') === true;
}

function groupsOf(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const id = record.attributes?.MessageGroupId ?? '';
    const group = groups.get(id);
    if (group) group.push(record);
    else groups.set(id, [record]);
  }
  return [...groups.values()];
}

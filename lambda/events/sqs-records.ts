/**
 * Recognising SQS batches (a Lambda event source mapping's `{ Records }`, or the bare array of
 * records that EventBridge Pipes delivers) and checking each record's fields before use: an
 * event is plain data from the caller, so no field is trusted to have its documented type.
 */
import type { Caller } from '../caller';
import type { SQSRecord } from 'aws-lambda';
import { ToolUsageError } from '../errors';
import { isJsonObject } from '../json';
import { xrayTrace, type Trace } from '../trace';

const SQS_EVENT_SOURCE = 'aws:sqs';

/** An SQS record as received: every field may be missing or of any type. */
export type ReceivedSqsRecord = Partial<Record<keyof SQSRecord, unknown>>;

export function isSqsRecord(value: unknown): value is ReceivedSqsRecord {
  return isJsonObject(value) && value.eventSource === SQS_EVENT_SOURCE;
}

/**
 * The records of an SQS batch, or `undefined` when the event is not one (it is then an EventBridge
 * event or a direct invoke). `{ Records: [...] }` is a batch when every element has `eventSource`
 * `aws:sqs` (`{ Records: [] }` is an empty one). An array is EventBridge Pipes' form: an empty
 * array or an array of SQS records is a batch, and any other array is a `ToolUsageError`.
 * Throws a `ToolUsageError` too for a batch with a record that cannot be reported by id (see
 * `checkMessageIds`).
 */
export function sqsRecordsOf(event: unknown): readonly ReceivedSqsRecord[] | undefined {
  let records: readonly unknown[];
  if (Array.isArray(event)) {
    const stranger = event.findIndex((element) => !isSqsRecord(element));
    if (stranger >= 0) {
      throw new ToolUsageError(
        `Invalid event: an array event must be a list of SQS records (EventBridge Pipes with an SQS source), ` +
          `but element [${stranger}] is not one (it needs \`eventSource\` "${SQS_EVENT_SOURCE}").`,
      );
    }
    records = event;
  } else {
    const candidate = isJsonObject(event) ? event.Records : undefined;
    if (!Array.isArray(candidate) || !candidate.every(isSqsRecord)) return undefined;
    records = candidate;
  }
  checkMessageIds(records as ReceivedSqsRecord[]);
  return records as ReceivedSqsRecord[];
}

/**
 * A record is reported failed by its `messageId`; one without a usable id could only vanish (never
 * failed, so deleted with the batch), so such a batch is refused as a whole: the throw makes Lambda
 * (or the pipe) retry the batch and keep it, and the error names the field.
 */
function checkMessageIds(records: readonly ReceivedSqsRecord[]): void {
  records.forEach((record, index) => {
    const id = record.messageId;
    if (typeof id !== 'string' || id.length === 0) {
      throw new ToolUsageError(
        `Invalid SQS batch: Records[${index}].messageId must be a non-empty string, got ${describe(id)}; ` +
          'a record without an id cannot be reported failed, so the batch is refused as a whole.',
      );
    }
  });
}

/**
 * Why one record (whose `messageId` is usable) cannot be run, or `undefined`: its `body` must be a
 * string (the envelope's JSON) and its `eventSourceARN` a string (the source and the derived ids
 * depend on it). Such a record fails alone, like a malformed envelope.
 */
export function recordProblem(record: ReceivedSqsRecord): ToolUsageError | undefined {
  for (const field of ['eventSourceARN', 'body'] as const) {
    if (typeof record[field] !== 'string') {
      return new ToolUsageError(`Invalid SQS record: \`${field}\` must be a string, got ${describe(record[field])}.`);
    }
  }
  return undefined;
}

/**
 * The queue a record was first sent to: its `eventSourceARN`, or, for a record redriven from a
 * dead-letter queue, the queue that moved it there (`attributes.DeadLetterQueueSourceArn`, set by
 * SQS, never by a sender), so that a call without ids keeps the ids of its first delivery.
 */
export function sourceQueueOf(record: ReceivedSqsRecord): string {
  const attributes = record.attributes;
  const first = isJsonObject(attributes) ? attributes.DeadLetterQueueSourceArn : undefined;
  return typeof first === 'string' && first.length > 0 ? first : (record.eventSourceARN as string);
}

/**
 * Who sent the message, as SQS attests it: `attributes.SenderId`, which SQS sets from the signed
 * request (an IAM user's id, or `<role id>:<session name>` for a role), never the sender. A message
 * relayed by SNS or EventBridge carries that service's id, not the original sender's.
 */
export function senderOf(record: ReceivedSqsRecord): Caller | undefined {
  const attributes = record.attributes;
  const id = isJsonObject(attributes) ? attributes.SenderId : undefined;
  return typeof id === 'string' && id.length > 0 ? { id, kind: 'iam', source: 'sqs', verified: true } : undefined;
}

/** The trace the record carries: SQS's `AWSTraceHeader` system attribute (X-Ray's format), converted. */
export function traceOfRecord(record: ReceivedSqsRecord): Trace | undefined {
  const attributes = record.attributes;
  return isJsonObject(attributes) ? xrayTrace(attributes.AWSTraceHeader) : undefined;
}

/** A FIFO queue's batch: any record's ARN ends in `.fifo` (a batch comes from one queue). */
export function isFifoBatch(records: readonly ReceivedSqsRecord[]): boolean {
  return records.some((record) => typeof record.eventSourceARN === 'string' && record.eventSourceARN.endsWith('.fifo'));
}

/**
 * The record's `MessageGroupId`. Records without one (missing or malformed `attributes`) share one
 * group, so their order is kept.
 */
export function messageGroupOf(record: ReceivedSqsRecord): string {
  const attributes = record.attributes;
  const group = isJsonObject(attributes) ? attributes.MessageGroupId : undefined;
  return typeof group === 'string' ? `g:${group}` : 'none';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined (missing)';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'an empty string' : `a ${typeof value}`;
}

/**
 * Whether this receive of the record is its last: SQS moves a message that failed `maxReceiveCount`
 * receives to the dead-letter queue. Unknown (no count, or no redrive policy known): false.
 */
export function isFinalReceive(record: ReceivedSqsRecord, maxReceiveCount: number | undefined): boolean {
  if (maxReceiveCount === undefined) return false;
  const attributes = record.attributes;
  const count = isJsonObject(attributes) ? Number(attributes.ApproximateReceiveCount) : NaN;
  return Number.isInteger(count) && count >= maxReceiveCount;
}

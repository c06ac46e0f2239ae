/** Lambda events and contexts as the bench feeds them to every handler. */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { lambdaContext as shapedContext, sqsRecord as shapedRecord } from '../../test/support/events';

export const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:bench-tool-calls';

/** An SQS record shaped as Lambda's event source mapping delivers it (Powertools' SqsRecordSchema checks it all). */
export function sqsRecord(messageId: string, body: unknown): SQSRecord {
  return shapedRecord(messageId, body, { arn: QUEUE_ARN });
}

export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A call envelope with its ids. */
export function callBody(tool: string, args: Record<string, unknown>, runId: string, callId: string): string {
  return JSON.stringify({ tool, args, run_id: runId, call_id: callId });
}

/** `count` batches of `size` no-op calls, every call with its own ids and message id. */
export function noopBatches(prefix: string, count: number, size: number): SQSEvent[] {
  const batches: SQSEvent[] = [];
  for (let b = 0; b < count; b++) {
    const records: SQSRecord[] = [];
    for (let r = 0; r < size; r++) {
      const id = `${prefix}-${b}-${r}`;
      records.push(sqsRecord(`msg-${id}`, callBody('noop', {}, `run-${prefix}-${b}`, `call-${id}`)));
    }
    batches.push(sqsEvent(records));
  }
  return batches;
}

/** A Lambda context with `remainingMs` left from now, as the runtime hands it to the handler. */
export function lambdaContext(remainingMs = 60_000, awsRequestId = 'bench-request'): Context {
  return shapedContext(remainingMs, awsRequestId);
}

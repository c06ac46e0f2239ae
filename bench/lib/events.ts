/** Lambda events and contexts as the bench feeds them to every handler. */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

export const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:bench-tool-calls';

/** An SQS record shaped as Lambda's event source mapping delivers it (Powertools' SqsRecordSchema checks it all). */
export function sqsRecord(messageId: string, body: unknown): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1700000000000',
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1700000000001',
    },
    messageAttributes: {},
    md5OfBody: '098f6bcd4621d373cade4e832627b4f6',
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'us-east-1',
  };
}

export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A call envelope (§2) with its ids. */
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
  const end = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'bench-tools',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bench-tools',
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: '/aws/lambda/bench-tools',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, end - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { writeLogLines } from '../../lambda/log';

export const STANDARD_QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:tool-calls';
export const FIFO_QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:tool-calls.fifo';

/** An SQS record as Lambda's event source mapping delivers it. */
export function sqsRecord(messageId: string, body: unknown, options: { arn?: string; groupId?: string } = {}): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1700000000000',
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: '1700000000001',
      ...(options.groupId === undefined ? {} : { MessageGroupId: options.groupId, SequenceNumber: '1', MessageDeduplicationId: messageId }),
    },
    messageAttributes: {},
    md5OfBody: 'not-checked',
    eventSource: 'aws:sqs',
    eventSourceARN: options.arn ?? STANDARD_QUEUE_ARN,
    awsRegion: 'us-east-1',
  };
}

export function sqsEvent(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A FIFO record in message group `groupId`. */
export function fifoRecord(messageId: string, groupId: string, body: unknown): SQSRecord {
  return sqsRecord(messageId, body, { arn: FIFO_QUEUE_ARN, groupId });
}

/** An EventBridge event as a rule delivers it to Lambda. */
export function eventBridgeEvent(id: string, detail: unknown, source = 'agents.planner') {
  return {
    version: '0',
    id,
    'detail-type': 'Tool Call Requested',
    source,
    account: '123456789012',
    time: '2026-12-02T10:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail,
  };
}

/** A Lambda context with `remainingMs` left at creation. */
export function lambdaContext(remainingMs: number, awsRequestId = 'req-1'): Context {
  const end = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'tools',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:tools',
    memoryLimitInMB: '512',
    awsRequestId,
    logGroupName: '/aws/lambda/tools',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => end - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Captures the runtime's JSON log lines instead of printing them. The runtime writes a turn's lines
 * when the turn ends; reading or restoring writes the current turn's lines first.
 */
export function captureLogs(): { lines: () => Array<Record<string, unknown>>; text: () => string[]; restore: () => void } {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  /** The JSON lines as written. */
  const text = () => {
    writeLogLines();
    return written
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'));
  };
  return {
    lines: () => text().map((line) => JSON.parse(line) as Record<string, unknown>),
    text,
    restore: () => {
      writeLogLines();
      spy.mockRestore();
    },
  };
}

/**
 * Captures the log lines of every test in the calling file (beforeEach / afterEach), so that the
 * runtime's lines are not printed into the test run's output; for files that do not read them.
 */
export function captureLogsOfEachTest(): void {
  let logs: ReturnType<typeof captureLogs> | undefined;
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs?.restore());
}

/**
 * The context AgentCore Gateway gives a Lambda target: the tool's name (`<target>___<tool>`) and,
 * when given, the session id in `clientContext.custom`.
 */
export function gatewayContext(toolName: string, sessionId?: string, remainingMs = 10_000): Context {
  return {
    ...lambdaContext(remainingMs),
    clientContext: {
      client: {} as never,
      env: {} as never,
      custom: { bedrockAgentCoreToolName: toolName, ...(sessionId === undefined ? {} : { bedrockAgentCoreSessionId: sessionId }) },
    },
  };
}

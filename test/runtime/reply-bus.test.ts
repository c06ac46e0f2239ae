/**
 * The reply bus through the real EventBridge client, against a local HTTP endpoint that answers
 * PutEvents as EventBridge does (there is no EventBridge emulator on npm).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EventBridgeReplyPublisher, REPLY_DETAIL_TYPES, tool, toolHandler, ToolExecutor } from '../../lambda';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { LOCAL_AWS_ENV } from '../support/local-aws';

interface PutEventsEntry {
  Source: string;
  DetailType: string;
  Detail: string;
  EventBusName: string;
}

let server: Server;
let endpoint: string;
let received: PutEventsEntry[];
let answer: () => { status: number; body: unknown };

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push(...(JSON.parse(body) as { Entries: PutEventsEntry[] }).Entries);
      const { status, body: reply } = answer();
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  received = [];
  answer = () => ({ status: 200, body: { FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] } });
  logs = captureLogs();
});
afterEach(() => logs.restore());

function publisher() {
  const client = new EventBridgeClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return new EventBridgeReplyPublisher({ busName: 'replies', client });
}

const echo = tool({ name: 'echo', run: (args) => args });
const fail = tool({ name: 'fail', run: () => Promise.reject(new Error('nope')) });

test("each reply is one event: the source names the executor's owner, the detail carries it, the status decides the detail-type", async () => {
  const handler = toolHandler(new ToolExecutor({ tools: [echo, fail], approvals: false }), { replies: publisher() });
  const result = await handler(
    sqsEvent(
      sqsRecord('ok', { tool: 'echo', args: { x: 1 }, run_id: 'r', call_id: 'c1' }),
      sqsRecord('unknown', { tool: 'missing', run_id: 'r', call_id: 'c2' }),
    ),
    lambdaContext(10_000),
  );
  expect(result).toEqual({ batchItemFailures: [] });
  const byType = Object.fromEntries(received.map((entry) => [entry.DetailType, entry]));
  expect(byType[REPLY_DETAIL_TYPES.ok]).toMatchObject({ Source: 'cdk-tool-handler.handler', EventBusName: 'replies' });
  expect(JSON.parse(byType['Tool Call Succeeded'].Detail)).toEqual({ status: 'ok', tool: 'echo', run_id: 'r', call_id: 'c1', result: { x: 1 }, owner: 'handler' });
  expect(JSON.parse(byType['Tool Call Failed'].Detail)).toEqual({
    status: 'error',
    tool: 'missing',
    run_id: 'r',
    call_id: 'c2',
    error: { type: 'ToolNotFound', message: expect.stringMatching(/missing/), retryable: false },
    owner: 'handler',
  });
});

test('a rejected entry (FailedEntryCount) fails the record so that it is retried', async () => {
  answer = () => ({ status: 200, body: { FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }] } });
  const handler = toolHandler(new ToolExecutor({ tools: [echo], approvals: false }), { replies: publisher() });
  const result = await handler(sqsEvent(sqsRecord('ok', { tool: 'echo' })), lambdaContext(10_000));
  expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'ok' }] });
  await expect(publisher().publish({ status: 'ok', tool: 'echo', run_id: 'r', call_id: 'c', result: 1 })).rejects.toMatchObject({
    name: 'AdapterError',
    retryable: true,
    message: expect.stringMatching(/InternalFailure try again/),
  });
});

test('an unreachable bus is a retryable AdapterError', async () => {
  answer = () => ({ status: 500, body: { __type: 'InternalException', message: 'down' } });
  await expect(publisher().publish({ status: 'ok', tool: 'echo', run_id: 'r', call_id: 'c', result: 1 })).rejects.toMatchObject({
    name: 'AdapterError',
    retryable: true,
  });
});

test('a result too large for an event is left out and said so; the rest of the reply goes out', async () => {
  await publisher().publish({ status: 'ok', tool: 'echo', run_id: 'r', call_id: 'c', result: 'x'.repeat(300 * 1024) });
  const detail = JSON.parse(received[0].Detail);
  expect(detail).toEqual({ status: 'ok', tool: 'echo', run_id: 'r', call_id: 'c', owner: 'handler', result_omitted: expect.stringMatching(/too large/) });
});

test('an owner given to the publisher (or in TOOL_HANDLER_OWNER) names the source; one outside the owner pattern is refused at once', async () => {
  const client = new EventBridgeClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  await new EventBridgeReplyPublisher({ busName: 'replies', client, owner: 'orders' }).publish({ status: 'ok', tool: 'echo', run_id: 'r', call_id: 'c', result: 1 });
  expect(received[0].Source).toBe('cdk-tool-handler.orders');
  expect(JSON.parse(received[0].Detail).owner).toBe('orders');
  expect(() => new EventBridgeReplyPublisher({ busName: 'replies', client, owner: 'a#b' })).toThrow(
    'EventBridgeReplyPublisher `owner` must be 1 to 64 characters of A-Z a-z 0-9 _ . -, got: "a#b".',
  );
});

test("the handler's publisher publishes as its executor's owner, not the environment's default", async () => {
  const saved = { ...process.env };
  Object.assign(process.env, { TOOL_HANDLER_REPLY_BUS: 'env-bus', AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint, ...LOCAL_AWS_ENV });
  try {
    const handler = toolHandler(new ToolExecutor({ tools: [echo], approvals: false, owner: 'billing' }));
    await handler({ tool: 'echo', args: {} }, lambdaContext(10_000));
    expect(received.map((entry) => entry.Source)).toEqual(['cdk-tool-handler.billing']);
  } finally {
    process.env = saved;
  }
});

test('TOOL_HANDLER_REPLY_BUS configures the bus, with the client the SDK builds from the environment', async () => {
  const saved = { ...process.env };
  Object.assign(process.env, {
    TOOL_HANDLER_REPLY_BUS: 'env-bus',
    AWS_ENDPOINT_URL_EVENTBRIDGE: endpoint,
    ...LOCAL_AWS_ENV,
  });
  try {
    const handler = toolHandler(new ToolExecutor({ tools: [echo], approvals: false }));
    await handler({ tool: 'echo', args: { y: 2 } }, lambdaContext(10_000));
    expect(received).toEqual([expect.objectContaining({ EventBusName: 'env-bus', DetailType: 'Tool Call Succeeded' })]);
  } finally {
    process.env = saved;
  }
});

/**
 * `tool({ rateLimit })` on the real DynamoDB store (dynalite) through `toolHandler`: a burst of SQS
 * calls from two callers against a limit counts each caller apart, refuses the call over the limit
 * with `RateLimited` and `retry_after_s` before the tool runs (or asks for approval), sets the
 * record's visibility to that retry time (the real SQS client, at the local SQS stand-in), and
 * counts `RateLimited` in EMF. One round trip more than the same call without a limit.
 */
import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { DynamoApprovalStore, handleEnvelope, MemoryApprovalStore, RateLimited, tool, toolHandler, ToolExecutor } from '../../lambda';
import { errorReply } from '../../lambda/reply';
import { startEndpoints, type LocalEndpoints, type VisibilityChange } from '../../local/endpoints';
import { createTestTable } from '../support/dynamo';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { LOCAL_AWS_ACCESS, LOCAL_AWS_ENV } from '../support/local-aws';
import { recordRequests } from '../support/sdk-middleware';

const runs: string[] = [];
const LIMIT = 3;

const search = tool({
  name: 'search',
  input: z.object({ q: z.string() }),
  rateLimit: { limit: LIMIT, window: 3600 },
  run: ({ q }, { caller }) => {
    runs.push(`${caller?.id}:${q}`);
    return { hits: 0 };
  },
});
const shared = tool({ name: 'shared', rateLimit: { limit: 2, window: 3600, by: 'tool' }, run: () => runs.push('shared') });
const refund = tool({ name: 'refund', rateLimit: { limit: 1, window: 3600 }, requiresApproval: true, run: () => 'refunded' });
const plain = tool({ name: 'plain', input: z.object({ q: z.string() }), run: () => 'ok' });

function fromCaller(messageId: string, senderId: string, body: unknown): SQSRecord {
  const record = sqsRecord(messageId, body);
  return { ...record, attributes: { ...record.attributes, SenderId: senderId } };
}

let endpoints: LocalEndpoints;
const changes: VisibilityChange[] = [];
const saved = { ...process.env };

beforeAll(async () => {
  endpoints = await startEndpoints({ invoke: () => undefined, onEvent: () => undefined, onVisibilityChange: (c) => changes.push(c) }, LOCAL_AWS_ACCESS);
  Object.assign(process.env, LOCAL_AWS_ENV, { AWS_ENDPOINT_URL_SQS: endpoints.url });
});
afterAll(async () => {
  process.env = saved;
  await endpoints.close();
});

async function dynamoHandler() {
  const { tableName, client } = await createTestTable();
  const store = new DynamoApprovalStore({ tableName, client });
  return { client, store, handler: toolHandler(new ToolExecutor({ tools: [search, shared, refund, plain], approvals: store }), { replies: false }) };
}

test('a burst from two callers: each caller counted apart; the call over the limit refused with retry_after_s, not run, its record failed and made visible again at the retry time', async () => {
  const { handler } = await dynamoHandler();
  runs.length = 0;
  changes.length = 0;
  const records = [
    ...Array.from({ length: LIMIT + 1 }, (_, i) => fromCaller(`a${i}`, 'AIDAALICE', { tool: 'search', args: { q: `a${i}` } })),
    ...Array.from({ length: LIMIT }, (_, i) => fromCaller(`b${i}`, 'AIDABOB', { tool: 'search', args: { q: `b${i}` } })),
  ];
  const logs = captureLogs();
  let answer: any;
  try {
    answer = await handler(sqsEvent(...records), lambdaContext(30_000));
  } finally {
    logs.restore();
  }
  const lines = logs.lines().filter((l) => l.message === 'tool call');
  const refused = lines.filter((l) => l.outcome === 'RateLimited');
  expect(refused).toHaveLength(1);
  expect(refused[0]['enduser.id']).toBe('AIDAALICE');
  const error = refused[0].error as { type: string; retryable: boolean; message: string };
  expect(error).toMatchObject({ type: 'RateLimited', retryable: true });
  expect(error.message).toMatch(/^Tool search allows 3 calls per 3600 s for this caller, and this window has had them: retry in \d+ s\.$/);
  // Alice ran three, Bob all three of his: the refused call never ran.
  expect(runs.filter((r) => r.startsWith('AIDAALICE:'))).toHaveLength(LIMIT);
  expect(runs.filter((r) => r.startsWith('AIDABOB:'))).toHaveLength(LIMIT);
  // Its record alone failed, and comes back when the window ends.
  const refusedId = refused[0].message_id as string;
  expect(answer.batchItemFailures).toEqual([{ itemIdentifier: refusedId }]);
  expect(changes).toHaveLength(1);
  expect(changes[0]).toMatchObject({
    QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/tool-calls',
    ReceiptHandle: `handle-${refusedId}`,
  });
  expect(changes[0].VisibilityTimeout).toBeGreaterThanOrEqual(1);
  expect(changes[0].VisibilityTimeout).toBeLessThanOrEqual(3600);
  // EMF: the refusal counts as RateLimited, beside Calls and Failed.
  expect(refused[0].RateLimited).toBe(1);
  const directive = (refused[0]._aws as any).CloudWatchMetrics[0];
  expect(directive.Metrics.map((m: { Name: string }) => m.Name)).toEqual(['Calls', 'Failed', 'Duration', 'RateLimited']);
  expect(lines.filter((l) => l.outcome !== 'RateLimited').every((l) => !('RateLimited' in l))).toBe(true);
});

test('by tool: every caller shares one count', async () => {
  const { handler } = await dynamoHandler();
  runs.length = 0;
  const records = ['AIDAALICE', 'AIDABOB', 'AIDACAROL'].map((sender, i) => fromCaller(`s${i}`, sender, { tool: 'shared', args: {} }));
  const logs = captureLogs();
  try {
    const answer: any = await handler(sqsEvent(...records), lambdaContext(30_000));
    expect(answer.batchItemFailures).toHaveLength(1);
  } finally {
    logs.restore();
  }
  expect(runs).toEqual(['shared', 'shared']);
  const refused = logs.lines().find((l) => l.outcome === 'RateLimited')!;
  expect((refused.error as { message: string }).message).toMatch(/^Tool shared allows 2 calls per 3600 s, and this window/);
});

test('a call over the limit asks for no approval', async () => {
  const approvals = new MemoryApprovalStore();
  const executor = new ToolExecutor({ tools: [refund], approvals });
  const logs = captureLogs();
  try {
    const first = await handleEnvelope(executor, { tool: 'refund', args: { n: 1 } });
    expect(first.status).toBe('pending_approval');
    const error = await handleEnvelope(executor, { tool: 'refund', args: { n: 2 } }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimited);
  } finally {
    logs.restore();
  }
  expect(await approvals.list()).toHaveLength(1);
});

test('RateLimited: retryable, retry_after_s a whole number of seconds to the window\'s end, in the error reply\'s `error` too', async () => {
  const executor = new ToolExecutor({ tools: [tool({ name: 'once', rateLimit: { limit: 1, window: 60 }, run: () => 1 })], approvals: new MemoryApprovalStore() });
  const logs = captureLogs();
  let error: RateLimited;
  try {
    await handleEnvelope(executor, { tool: 'once', args: {} });
    error = (await handleEnvelope(executor, { tool: 'once', args: {} }).then(() => undefined, (e: unknown) => e)) as RateLimited;
  } finally {
    logs.restore();
  }
  expect(error!).toMatchObject({ name: 'RateLimited', retryable: true });
  expect(Number.isInteger(error!.retry_after_s)).toBe(true);
  expect(error!.retry_after_s).toBeGreaterThanOrEqual(1);
  expect(error!.retry_after_s).toBeLessThanOrEqual(60);
  expect(errorReply(error!, { tool: 'once', runId: 'r', callId: 'c' }).error).toEqual({
    type: 'RateLimited',
    message: error!.message,
    retryable: true,
    retry_after_s: error!.retry_after_s,
  });
});

test('one round trip more than the same call without a limit (a conditional UpdateItem)', async () => {
  const { client, handler } = await dynamoHandler();
  const recorder = recordRequests(client);
  const logs = captureLogs();
  try {
    await handler({ tool: 'plain', args: { q: 'x' } });
    const without = recorder.sent.length;
    recorder.reset();
    await handler({ tool: 'search', args: { q: 'x' } });
    expect(recorder.sent.length - without).toBe(1);
    expect(recorder.sent.filter((r) => r.command === 'UpdateItemCommand' && String(r.input.ConditionExpression).includes('attribute_not_exists(#count)'))).toHaveLength(1);
  } finally {
    logs.restore();
    recorder.detach();
  }
});

test('a duplicate is not counted: a redelivery of a call that ran gets its kept reply, not RateLimited, and the count is unchanged', async () => {
  const { handler } = await dynamoHandler();
  const once = (messageId: string, runId: string) => fromCaller(messageId, 'AIDADUPE', { tool: 'search', args: { q: runId }, run_id: runId, call_id: 'c' });
  runs.length = 0;
  const logs = captureLogs();
  try {
    // The limit's calls, each then delivered again (as SQS may): every copy answered from its kept reply.
    for (let i = 0; i < LIMIT; i++) expect(await handler(sqsEvent(once(`m${i}`, `run${i}`)), lambdaContext(30_000))).toEqual({ batchItemFailures: [] });
    for (let i = 0; i < LIMIT; i++) expect(await handler(sqsEvent(once(`again${i}`, `run${i}`)), lambdaContext(30_000))).toEqual({ batchItemFailures: [] });
    // The count holds the limit's calls only: one new call is still refused, and none more ran.
    const answer: any = await handler(sqsEvent(once('new', 'run-new')), lambdaContext(30_000));
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'new' }]);
  } finally {
    logs.restore();
  }
  expect(runs.filter((r) => r.startsWith('AIDADUPE:'))).toHaveLength(LIMIT);
  const lines = logs.lines().filter((l) => l.message === 'tool call');
  expect(lines.filter((l) => l.outcome === 'RateLimited').map((l) => l.message_id)).toEqual(['new']);
  // Each copy was answered with its call's kept reply (the tool did not run again: `runs` above).
  expect(lines.filter((l) => String(l.message_id).startsWith('again')).map((l) => l.outcome)).toEqual(Array(LIMIT).fill('ok'));
});

test('a refused call gives its lease back: when it comes again in a new window, it runs', async () => {
  const { tableName, client } = await createTestTable();
  // A second before the minute ends: the next window starts while a lease taken now would still be
  // held. The clock is set before the store is made, which keeps its own reference to it.
  let now = Date.parse('2026-01-01T00:00:59Z');
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => now);
  const store = new DynamoApprovalStore({ tableName, client });
  const ran: string[] = [];
  const perMinute = tool({ name: 'per_minute', rateLimit: { limit: 1, window: 60 }, run: (_args, { callId }) => ran.push(callId) });
  const executor = new ToolExecutor({ tools: [perMinute], approvals: store });
  const logs = captureLogs();
  try {
    await handleEnvelope(executor, { tool: 'per_minute', args: {}, run_id: 'r', call_id: 'first' });
    const refused = await handleEnvelope(executor, { tool: 'per_minute', args: {}, run_id: 'r', call_id: 'second' }).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimited);
    now += 2_000;
    // Not CallInProgress: the refusal gave its lease back.
    await expect(handleEnvelope(executor, { tool: 'per_minute', args: {}, run_id: 'r', call_id: 'second' })).resolves.toMatchObject({ status: 'ok' });
  } finally {
    logs.restore();
    spy.mockRestore();
  }
  expect(ran).toEqual(['first', 'second']);
});

test('a limit is checked at definition, naming the option', () => {
  expect(() => tool({ name: 't', rateLimit: { limit: 0, window: 1 }, run: () => 1 })).toThrow(
    'cdk-tool-handler: tool t `rateLimit.limit` must be a whole number of at least 1, got: 0.',
  );
  expect(() => tool({ name: 't', rateLimit: { limit: 1, window: 1.5 }, run: () => 1 })).toThrow('`rateLimit.window` must be a whole number');
  expect(() => tool({ name: 't', rateLimit: { limit: 1, window: 1, by: 'ip' as 'tool' }, run: () => 1 })).toThrow(
    "`rateLimit.by` must be 'caller' or 'tool', got: \"ip\".",
  );
});

test('without a store that counts, a rate-limited call is refused, not run uncounted', async () => {
  const executor = new ToolExecutor({ tools: [search], approvals: false });
  const logs = captureLogs();
  try {
    const error = await handleEnvelope(executor, { tool: 'search', args: { q: 'x' } }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ name: 'AdapterError', retryable: false, message: expect.stringContaining('no state store counts calls here') });
  } finally {
    logs.restore();
  }
});

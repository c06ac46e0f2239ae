/**
 * A flow waiting for its call (`reply_to`): each call completes its flow exactly once, with success
 * or the named failure, on every path (at once, approval then resume, denial, expiry, a failure
 * retrying cannot fix, a retryable one on the last delivery), through the real SDK clients against
 * the loopback stand-ins of Step Functions and Lambda durable callbacks (local/flow-engines.ts). The
 * token appears in no log line, reply or reply-bus event.
 */
import * as z from 'zod';
import { approvalsExpirer } from '../../lambda/approvals/expirer';
import { resetFlowEngineClients } from '../../lambda/flows/engines';
import { flowTarget } from '../../lambda/results/flow-target';
import { handleEnvelope, MemoryApprovalStore, tool, toolHandler, ToolExecutor, ToolUsageError, type ReplyPublisher } from '../../lambda';
import { startFlowEngines, type FlowEnginesStandIn } from '../../local/flow-engines';
import { captureLogs, sqsEvent, sqsRecord } from '../support/events';
import { S3ResultOffload } from '../../lambda/result-offload-s3';
import { startS3, type LocalS3 } from '../../local/s3';
import { LOCAL_AWS_ACCESS, LOCAL_AWS_ENV } from '../support/local-aws';

const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAU-secret-task-token-0123456789';
const CALLBACK = 'cb-secret-callback-id-9876543210';
const MAX_RECEIVES = 3;

let engines: FlowEnginesStandIn;
let logs: ReturnType<typeof captureLogs>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  engines = await startFlowEngines(LOCAL_AWS_ACCESS);
  Object.assign(process.env, LOCAL_AWS_ENV, {
    AWS_ENDPOINT_URL_SFN: engines.url,
    AWS_ENDPOINT_URL_LAMBDA: engines.url,
    TOOL_HANDLER_MAX_RECEIVE_COUNT: String(MAX_RECEIVES),
  });
  resetFlowEngineClients();
});
afterAll(async () => {
  resetFlowEngineClients();
  process.env = savedEnv;
  await engines.close();
});
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

let clock = Date.now();
function setUp() {
  clock = Date.now();
  const approvals = new MemoryApprovalStore({ ttlSeconds: 60, now: () => clock });
  const published: unknown[] = [];
  const replies: ReplyPublisher = { publish: async (reply) => void published.push(reply) };
  const add = tool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b });
  const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: ({ orderId }) => ({ refunded: orderId }) });
  const flaky = tool({
    name: 'flaky',
    input: z.object({}),
    run: () => {
      throw new Error('upstream is down');
    },
  });
  const handler = toolHandler(new ToolExecutor({ tools: [add, refund, flaky], approvals }), { replies });
  return { handler, approvals, published };
}

let sequence = 0;
function sfnCall(tool: string, args: object, token = `${TOKEN}-${++sequence}`) {
  return { token, envelope: { tool, args, run_id: `run-${sequence}`, call_id: 'c1', reply_to: { kind: 'sfn', task_token: token } } };
}

async function deliver(handler: ReturnType<typeof setUp>['handler'], body: unknown, options: { id?: string; receives?: number } = {}) {
  const record = sqsRecord(options.id ?? `m-${++sequence}`, body);
  (record.attributes as any).ApproximateReceiveCount = String(options.receives ?? 1);
  return (await handler(sqsEvent(record))) as { batchItemFailures: unknown[] };
}

/** Every text the run produced: log lines, the bus's events and what the handler returned. */
function everything(published: unknown[], ...answers: unknown[]): string {
  return [...logs.text(), JSON.stringify(published), JSON.stringify(answers)].join('\n');
}

test('a call that ends at once completes its flow with the reply, once; its duplicate delivery completes nothing', async () => {
  const { handler, published } = setUp();
  const { token, envelope } = sfnCall('add', { a: 2, b: 3 });
  const waited = engines.waitForTask(token);
  const first = await deliver(handler, envelope, { id: 'dup' });
  const completion = await waited;
  expect(completion).toMatchObject({ engine: 'sfn', ok: true });
  expect(JSON.parse(completion.output!)).toEqual({ status: 'ok', tool: 'add', run_id: envelope.run_id, call_id: 'c1', result: 5 });
  const again = await deliver(handler, envelope, { id: 'dup' });
  expect(first.batchItemFailures).toEqual([]);
  expect(again.batchItemFailures).toEqual([]);
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  expect(everything(published, first, again)).not.toContain(token);
});

test('approve: pending completes nothing; the resume completes the flow with the ok reply; a second resume completes nothing', async () => {
  const { handler, approvals, published } = setUp();
  const { token, envelope } = sfnCall('refund', { orderId: 'o-1' });
  const waited = engines.waitForTask(token);
  await deliver(handler, envelope);
  const pending = published[0] as { status: string; approval_id: string };
  expect(pending.status).toBe('pending_approval');
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(0);
  await approvals.decide(pending.approval_id, { approved: true, by: 'alice' });
  await deliver(handler, { approval_id: pending.approval_id });
  const completion = await waited;
  expect(JSON.parse(completion.output!)).toMatchObject({ status: 'ok', tool: 'refund', result: { refunded: 'o-1' }, approval_id: pending.approval_id });
  // A second resume (the pipe delivers at least once) and a redelivered call.
  const second = await deliver(handler, { approval_id: pending.approval_id });
  await deliver(handler, envelope);
  expect(second.batchItemFailures).toEqual([]);
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  expect(everything(published)).not.toContain(token);
});

test('deny: the resume fails the flow with ToolHandler.ApprovalDenied and the reason as cause', async () => {
  const { handler, approvals, published } = setUp();
  const { token, envelope } = sfnCall('refund', { orderId: 'o-2' });
  const waited = engines.waitForTask(token);
  await deliver(handler, envelope);
  const { approval_id } = published[0] as { approval_id: string };
  await approvals.decide(approval_id, { approved: false, by: 'bob', reason: 'order already refunded' });
  const answer = await deliver(handler, { approval_id });
  expect(answer.batchItemFailures).toEqual([]);
  const completion = await waited;
  expect(completion).toMatchObject({ ok: false, error: 'ToolHandler.ApprovalDenied' });
  expect(completion.cause).toContain('order already refunded');
  await deliver(handler, { approval_id });
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
});

test('expire: the expirer fails the flow with ToolHandler.ApprovalExpired', async () => {
  const { handler, approvals } = setUp();
  const { token, envelope } = sfnCall('refund', { orderId: 'o-3' });
  const waited = engines.waitForTask(token);
  await deliver(handler, envelope);
  clock += 61_000;
  const expire = approvalsExpirer({ store: approvals, targets: [flowTarget(approvals.flows)] });
  const run = await expire();
  expect(run.expired).toHaveLength(1);
  expect(run.unannounced).toEqual([]);
  expect(await waited).toMatchObject({ ok: false, error: 'ToolHandler.ApprovalExpired' });
  expect(logs.text().join('\n')).not.toContain(token);
});

test('expire while the engine cannot be reached: the approval stays expired, and the next expirer run fails the flow, once', async () => {
  const { handler, approvals } = setUp();
  const { token, envelope } = sfnCall('refund', { orderId: 'o-4' });
  await deliver(handler, envelope);
  clock += 61_000;
  const expire = approvalsExpirer({ store: approvals, targets: [flowTarget(approvals.flows)] });
  process.env.AWS_ENDPOINT_URL_SFN = 'http://127.0.0.1:9';
  resetFlowEngineClients();
  let first;
  try {
    first = await expire();
  } finally {
    process.env.AWS_ENDPOINT_URL_SFN = engines.url;
    resetFlowEngineClients();
  }
  expect(first.expired).toHaveLength(1);
  expect(first.unannounced).toEqual(first.expired);
  expect(engines.received.filter((c) => c.id === token)).toEqual([]);
  const waited = engines.waitForTask(token);
  clock += 300_000;
  const second = await expire();
  expect(second).toEqual({ expired: [], retried: first.expired, unannounced: [] });
  expect(await waited).toMatchObject({ ok: false, error: 'ToolHandler.ApprovalExpired' });
  expect(await expire()).toEqual({ expired: [], retried: [], unannounced: [] });
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  expect(logs.text().join('\n')).not.toContain(token);
});

test('a retryable failure completes nothing while the queue retries, and fails the flow on the last receive', async () => {
  const { handler, published } = setUp();
  const { token, envelope } = sfnCall('flaky', {});
  const waited = engines.waitForTask(token);
  for (let receive = 1; receive < MAX_RECEIVES; receive++) {
    const answer = await deliver(handler, envelope, { id: 'flaky', receives: receive });
    expect(answer.batchItemFailures).toHaveLength(1);
  }
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(0);
  const last = await deliver(handler, envelope, { id: 'flaky', receives: MAX_RECEIVES });
  // Still failed: the record goes to the dead-letter queue, and the flow knows.
  expect(last.batchItemFailures).toHaveLength(1);
  expect(await waited).toMatchObject({ ok: false, error: 'ToolHandler.ToolFailed' });
  expect(everything(published, last)).not.toContain(token);
});

test('a failure retrying cannot fix fails the flow at once, and the record is done', async () => {
  const { handler } = setUp();
  const { token, envelope } = sfnCall('add', { a: 'two', b: 3 });
  const waited = engines.waitForTask(token);
  const answer = await deliver(handler, envelope);
  expect(answer.batchItemFailures).toEqual([]);
  expect(await waited).toMatchObject({ ok: false, error: 'ToolHandler.ToolUsageError' });
});

test('a completion after the flow timed out is recorded, not retried; the record is done', async () => {
  const { handler } = setUp();
  const { token, envelope } = sfnCall('add', { a: 1, b: 1 });
  engines.timeOut(token);
  const answer = await deliver(handler, envelope);
  expect(answer.batchItemFailures).toEqual([]);
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  const warning = logs.lines().find((line) => String(line.message).includes('closed before its completion'));
  expect(warning).toMatchObject({ error: 'TaskTimedOut' });
  // Redelivered: the kept reply, and no second try.
  await deliver(handler, envelope);
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  expect(logs.text().join('\n')).not.toContain(token);
});

test('an engine that cannot be reached: the delivery is retried, and the retry completes the flow once', async () => {
  const { handler } = setUp();
  const { token, envelope } = sfnCall('add', { a: 4, b: 4 });
  process.env.AWS_ENDPOINT_URL_SFN = 'http://127.0.0.1:9';
  resetFlowEngineClients();
  try {
    const answer = await deliver(handler, envelope, { id: 'unreachable' });
    expect(answer.batchItemFailures).toHaveLength(1);
  } finally {
    process.env.AWS_ENDPOINT_URL_SFN = engines.url;
    resetFlowEngineClients();
  }
  const waited = engines.waitForTask(token);
  const retry = await deliver(handler, envelope, { id: 'unreachable', receives: 2 });
  expect(retry.batchItemFailures).toEqual([]);
  expect(JSON.parse((await waited).output!)).toMatchObject({ status: 'ok', result: 8 });
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  expect(logs.text().join('\n')).not.toContain(token);
});

test('durable: success carries the reply as the result; a failure names the error in ErrorType and ErrorData', async () => {
  const { handler, approvals, published } = setUp();
  const ok = engines.waitForCallback(`${CALLBACK}-ok`);
  await deliver(handler, { tool: 'add', args: { a: 1, b: 2 }, reply_to: { kind: 'durable', callback_id: `${CALLBACK}-ok` } });
  expect(JSON.parse((await ok).output!)).toMatchObject({ status: 'ok', result: 3 });

  const denied = engines.waitForCallback(`${CALLBACK}-deny`);
  await deliver(handler, { tool: 'refund', args: { orderId: 'o-9' }, reply_to: { kind: 'durable', callback_id: `${CALLBACK}-deny` } });
  const { approval_id } = published.find((p: any) => p.status === 'pending_approval') as { approval_id: string };
  await approvals.decide(approval_id, { approved: false, by: 'carol' });
  await deliver(handler, { approval_id });
  const failure = await denied;
  expect(failure).toMatchObject({ engine: 'durable', ok: false, error: 'ToolHandler.ApprovalDenied' });
  expect(JSON.parse(failure.errorData!)).toMatchObject({ error: 'ToolHandler.ApprovalDenied' });
  expect(everything(published)).not.toContain(CALLBACK);
});

describe('reply_to in the envelope', () => {
  const executor = () => new ToolExecutor({ tools: [tool({ name: 'add', run: () => 1 })], approvals: false });
  const refused = async (reply_to: unknown) => {
    return handleEnvelope(executor(), { tool: 'add', reply_to }).then(
      () => undefined,
      (error: Error) => error,
    );
  };

  test.each([
    [{ kind: 'email', task_token: TOKEN }, /`reply_to.kind` must be "sfn"/],
    [{ kind: 'sfn' }, /task_token/],
    [{ kind: 'sfn', task_token: TOKEN, extra: 1 }, /reply_to.extra/],
    [{ kind: 'sfn', callback_id: TOKEN }, /reply_to/],
    [{ kind: 'sfn', task_token: 'x'.repeat(2049) }, /`reply_to.task_token` must be at most 2048 characters/],
    [{ kind: 'durable', callback_id: 'x'.repeat(1025) }, /`reply_to.callback_id` must be at most 1024 characters/],
    [{ kind: 'sfn', task_token: `${TOKEN} with space` }, /must not contain whitespace/],
    ['a string', /reply_to/],
  ])('refusal %# is a ToolUsageError that names what is wrong and never quotes the token', async (replyTo, message) => {
    const error = await refused(replyTo);
    expect(error).toBeInstanceOf(ToolUsageError);
    expect(error!.message).toMatch(message);
    expect(error!.message).not.toContain(TOKEN);
  });

  test('a resume may not carry reply_to', async () => {
    await expect(handleEnvelope(executor(), { approval_id: 'apr_1', reply_to: { kind: 'sfn', task_token: TOKEN } })).rejects.toThrow(
      /key `reply_to` is not allowed in a resume/,
    );
  });
});

describe('a result too big for a flow\'s completion (256 KB)', () => {
  /** Answers a string whose JSON is exactly `bytes` bytes. */
  const big = tool({ name: 'big', input: z.object({ bytes: z.number() }), run: ({ bytes }) => 'x'.repeat(bytes - 2) });
  const bigRefund = tool({ name: 'big_refund', input: z.object({ bytes: z.number() }), requiresApproval: true, run: ({ bytes }) => 'x'.repeat(bytes - 2) });
  let s3: LocalS3;

  beforeAll(async () => {
    s3 = await startS3(LOCAL_AWS_ACCESS);
    process.env.AWS_ENDPOINT_URL_S3 = s3.url;
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_S3;
    await s3.close();
  });

  function handlerWith(threshold?: number) {
    const approvals = new MemoryApprovalStore({ ttlSeconds: 60 });
    const published: unknown[] = [];
    const resultOffload = threshold === undefined ? false : new S3ResultOffload({ bucket: 'results', threshold, expiryDays: 7 });
    const handler = toolHandler(new ToolExecutor({ tools: [big, bigRefund], approvals }), { replies: { publish: async (reply) => void published.push(reply) }, resultOffload });
    return { handler, approvals, published };
  }

  test.each([
    ['at the default threshold (256 KiB): the reply around it would not fit', 256 * 1024, 256 * 1024],
    ['under a threshold set above a flow\'s limit', 1024 * 1024, 500 * 1024],
  ])('with resultOffload, a result %s is offloaded: the flow completes with result_ref, once', async (_label, threshold, bytes) => {
    const { handler, published } = handlerWith(threshold);
    const { token, envelope } = sfnCall('big', { bytes });
    const waited = engines.waitForTask(token);
    const answer = await deliver(handler, envelope);
    const completion = await waited;
    expect(answer.batchItemFailures).toEqual([]);
    expect(completion).toMatchObject({ engine: 'sfn', ok: true });
    const reply = JSON.parse(completion.output!);
    expect(reply).toMatchObject({ status: 'ok', tool: 'big', result_ref: { bytes, uri: expect.stringMatching(/^s3:\/\/results\//) } });
    expect(reply).not.toHaveProperty('result');
    expect(s3.objects.get(reply.result_ref.uri.slice('s3://'.length))).toHaveLength(bytes);
    expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
    expect(everything(published, answer)).not.toContain(token);
  });

  test('with resultOffload, the resume of an approval a flow waits for offloads it too', async () => {
    const { handler, approvals, published } = handlerWith(256 * 1024);
    const { token, envelope } = sfnCall('big_refund', { bytes: 256 * 1024 });
    const waited = engines.waitForTask(token);
    await deliver(handler, envelope);
    const pending = published[0] as { status: string; approval_id: string };
    expect(pending.status).toBe('pending_approval');
    await approvals.decide(pending.approval_id, { approved: true, by: 'alice' });
    await deliver(handler, { approval_id: pending.approval_id });
    const reply = JSON.parse((await waited).output!);
    expect(reply).toMatchObject({ status: 'ok', approval_id: pending.approval_id, result_ref: { bytes: 256 * 1024 } });
    expect(reply).not.toHaveProperty('result');
  });

  test('without resultOffload, the flow fails at once with ToolHandler.ToolFailed saying so and how to fix it; the record is done, nothing truncated', async () => {
    const { handler, published } = handlerWith();
    const { token, envelope } = sfnCall('big', { bytes: 300_000 });
    const waited = engines.waitForTask(token);
    const answer = await deliver(handler, envelope);
    const completion = await waited;
    expect(answer.batchItemFailures).toEqual([]);
    expect(completion).toMatchObject({ engine: 'sfn', ok: false, error: 'ToolHandler.ToolFailed' });
    expect(completion.cause).toMatch(/^Tool big returned a result of 300000 bytes of JSON, over the \d+ bytes this call's reply can carry: .*`resultOffload`/);
    expect(completion.output).toBeUndefined();
    expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
    expect(everything(published, answer)).not.toContain(token);
  });
});

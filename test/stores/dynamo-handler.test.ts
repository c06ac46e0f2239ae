/**
 * `toolHandler` on the DynamoDB store, with SQS-shaped events, against dynalite: the approval
 * lifecycle, concurrent resumes, duplicate calls and store faults, end to end.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse } from 'aws-lambda';
import * as z from 'zod';
import { DynamoApprovalStore, tool, toolHandler, ToolExecutor, type ToolHandlerOptions } from '../../lambda';
import { resetSharedDocumentClient } from '../../lambda/stores/dynamo-table';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { LOCAL_AWS_ENV } from '../support/local-aws';
import { injectFault, THROTTLING, INTERNAL_SERVER_ERROR } from '../support/sdk-middleware';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

async function setUp(options: { delayMs?: number; ttlSeconds?: number; now?: () => number; handler?: ToolHandlerOptions } = {}) {
  const { tableName, client } = await createTestTable();
  const store = new DynamoApprovalStore({ tableName, client, ttlSeconds: options.ttlSeconds, now: options.now });
  const runs: string[] = [];
  const refund = tool({
    name: 'refund',
    input: z.object({ orderId: z.string() }),
    requiresApproval: true,
    run: async ({ orderId }) => {
      runs.push(`refund:${orderId}`);
      if (options.delayMs) await sleep(options.delayMs);
      return { refunded: orderId };
    },
  });
  const charge = tool({
    name: 'charge',
    input: z.object({ amount: z.number() }),
    run: async ({ amount }) => {
      runs.push(`charge:${amount}`);
      if (options.delayMs) await sleep(options.delayMs);
      return { charged: amount };
    },
  });
  const handler = toolHandler(new ToolExecutor({ tools: [refund, charge], approvals: store }), { replies: false, ...options.handler });
  const deliver = (id: string, body: unknown) => handler(sqsEvent(sqsRecord(id, body)), lambdaContext(10_000)) as Promise<SQSBatchResponse>;
  const direct = (body: unknown) => handler(body, lambdaContext(10_000));
  return { store, client, tableName, runs, deliver, direct };
}

const refundCall = { tool: 'refund', args: { orderId: 'o-1' }, run_id: 'run-1', call_id: 'call-1' };
const ok = { batchItemFailures: [] };

describe('approval lifecycle through SQS', () => {
  test('pending, decided, resumed, redelivered with the kept result', async () => {
    const { store, runs, deliver, direct } = await setUp();
    expect(await deliver('m-1', refundCall)).toEqual(ok);
    const [pending] = await store.list({ pending: true });
    expect(pending).toMatchObject({ tool: 'refund', runId: 'run-1', callId: 'call-1', args: { orderId: 'o-1' }, status: 'pending' });
    expect(await deliver('m-1', refundCall)).toEqual(ok); // redelivered call: the same approval
    expect(await store.list()).toHaveLength(1);

    await store.decide(pending.approvalId, { approved: true, by: 'alice' });
    expect(await deliver('m-2', { approval_id: pending.approvalId })).toEqual(ok);
    expect(runs).toEqual(['refund:o-1']);
    expect(await deliver('m-2', { approval_id: pending.approvalId })).toEqual(ok); // redelivered resume
    await expect(direct({ approval_id: pending.approvalId })).resolves.toEqual({
      status: 'already_done',
      tool: 'refund',
      run_id: 'run-1',
      call_id: 'call-1',
      approval_id: pending.approvalId,
      result: { refunded: 'o-1' },
    });
    expect(runs).toEqual(['refund:o-1']);
  });

  test('denied, not yet decided, unknown and expired resumes fail to the dead-letter path', async () => {
    let now = Date.now();
    const { store, runs, deliver, direct } = await setUp({ ttlSeconds: 60, now: () => now });
    await deliver('m-1', refundCall);
    const [pending] = await store.list({ pending: true });
    expect(await deliver('m-2', { approval_id: pending.approvalId })).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    await expect(direct({ approval_id: pending.approvalId })).rejects.toThrow(/not decided yet/);
    await expect(direct({ approval_id: 'apr_unknown' })).rejects.toMatchObject({ name: 'ApprovalNotFound' });

    await store.decide(pending.approvalId, { approved: false, by: 'bob', reason: 'duplicate refund' });
    await expect(direct({ approval_id: pending.approvalId })).rejects.toMatchObject({
      name: 'ApprovalDenied',
      message: expect.stringMatching(/duplicate refund/),
    });
    await expect(direct(refundCall)).rejects.toMatchObject({ name: 'ApprovalDenied' });

    await deliver('m-3', { ...refundCall, call_id: 'call-2' });
    const [second] = await store.list({ pending: true });
    await store.decide(second.approvalId, { approved: true, by: 'alice' });
    now += 61_000;
    await expect(direct({ approval_id: second.approvalId })).rejects.toMatchObject({ name: 'ApprovalNotFound' });
    expect(runs).toEqual([]);
  });

  test('50 concurrent resumes of one approval run the tool exactly once', async () => {
    const { store, runs, direct } = await setUp({ delayMs: 50 });
    const pending = (await direct(refundCall)) as { approval_id: string };
    await store.decide(pending.approval_id, { approved: true, by: 'alice' });
    const replies = await Promise.all(Array.from({ length: 50 }, () => direct({ approval_id: pending.approval_id })));
    expect(runs).toEqual(['refund:o-1']);
    const statuses = replies.map((reply) => (reply as { status: string }).status);
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'already_done')).toHaveLength(49);
  });
});

describe('approvals run only the args they were decided on', () => {
  async function rewrite(client: Awaited<ReturnType<typeof setUp>>['client'], tableName: string, approvalId: string, update: string, values: Record<string, unknown>) {
    await client.send(
      new UpdateCommand({ TableName: tableName, Key: { pk: `approval#handler#${approvalId}` }, UpdateExpression: update, ExpressionAttributeValues: values }),
    );
  }

  test('args rewritten after the decision (the handler role can write args) never run', async () => {
    const { store, client, tableName, runs, direct } = await setUp();
    const { approval_id } = (await direct(refundCall)) as { approval_id: string };
    await store.decide(approval_id, { approved: true, by: 'alice' });
    await rewrite(client, tableName, approval_id, 'SET args = :args', { ':args': JSON.stringify({ orderId: 'o-666' }) });
    await expect(direct({ approval_id })).rejects.toMatchObject({ name: 'ToolUsageError', message: expect.stringMatching(/not decided on the tool and args/) });
    expect(runs).toEqual([]);
    expect((await store.get(approval_id))?.claimedUntil).toBeUndefined();
  });

  test('a decision written without DynamoApprovalStore.decide (no decided fingerprint) never runs', async () => {
    const { client, tableName, runs, direct } = await setUp();
    const { approval_id } = (await direct(refundCall)) as { approval_id: string };
    await rewrite(client, tableName, approval_id, 'SET decision = :d, decidedBy = :by', { ':d': 'approved', ':by': 'script' });
    await expect(direct({ approval_id })).rejects.toMatchObject({ name: 'ToolUsageError' });
    expect(runs).toEqual([]);
  });
});

describe('duplicate calls through SQS', () => {
  const chargeCall = { tool: 'charge', args: { amount: 5 }, run_id: 'run-9', call_id: 'call-9' };

  test('a redelivered finished call returns the kept reply without running', async () => {
    const { runs, deliver, direct } = await setUp();
    expect(await deliver('m-1', chargeCall)).toEqual(ok);
    expect(await deliver('m-1', chargeCall)).toEqual(ok);
    await expect(direct(chargeCall)).resolves.toEqual({ status: 'ok', tool: 'charge', run_id: 'run-9', call_id: 'call-9', result: { charged: 5 } });
    expect(runs).toEqual(['charge:5']);
  });

  test('one that arrives while the first runs is failed (CallInProgress) and later gets the reply', async () => {
    const { runs, deliver } = await setUp({ delayMs: 200 });
    const first = deliver('m-1', chargeCall);
    await sleep(50);
    expect(await deliver('m-1', chargeCall)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(logs.lines().some((line) => (line.error as { type?: string } | undefined)?.type === 'CallInProgress')).toBe(true);
    expect(await first).toEqual(ok);
    expect(await deliver('m-1', chargeCall)).toEqual(ok);
    expect(runs).toEqual(['charge:5']);
  });

  test('the same ids with other args fail without running', async () => {
    const { runs, deliver, direct } = await setUp();
    await deliver('m-1', chargeCall);
    await expect(direct({ ...chargeCall, args: { amount: 6 } })).rejects.toMatchObject({ name: 'ToolUsageError' });
    expect(runs).toEqual(['charge:5']);
  });
});

describe('store faults: records fail as retryable, and the retry runs the tool exactly once', () => {
  const chargeCall = { tool: 'charge', args: { amount: 7 }, run_id: 'run-f', call_id: 'call-f' };

  test.each([
    ['throttled begin', THROTTLING, 1],
    ['a 500 on begin', INTERNAL_SERVER_ERROR, 1],
  ])('%s', async (_name, fault, nth) => {
    const { client, runs, deliver } = await setUp();
    const remove = injectFault(client, fault, { nth });
    expect(await deliver('m-1', chargeCall)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    remove();
    expect(runs).toEqual([]);
    expect(await deliver('m-1', chargeCall)).toEqual(ok);
    expect(await deliver('m-1', chargeCall)).toEqual(ok);
    expect(runs).toEqual(['charge:7']);
  });

  test('a failed finish (after the tool ran) still succeeds; the redelivery waits out the lease, never runs twice at once', async () => {
    const { client, runs, deliver } = await setUp();
    const remove = injectFault(client, THROTTLING, { nth: 2 }); // begin ok, finish throttled
    expect(await deliver('m-1', chargeCall)).toEqual(ok);
    remove();
    expect(runs).toEqual(['charge:7']);
    expect(logs.lines().some((line) => line.level === 'WARN')).toBe(true);
    // A duplicate delivery meanwhile finds the lease of the run's invocation, not a free call.
    expect(await deliver('m-1', chargeCall)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(runs).toEqual(['charge:7']);
  });

  test('a throttled claim fails the resume record; the retry resumes once', async () => {
    const { store, client, runs, deliver } = await setUp();
    await deliver('m-1', refundCall);
    const [pending] = await store.list({ pending: true });
    await store.decide(pending.approvalId, { approved: true, by: 'alice' });
    const remove = injectFault(client, THROTTLING);
    expect(await deliver('m-2', { approval_id: pending.approvalId })).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    remove();
    expect(await deliver('m-2', { approval_id: pending.approvalId })).toEqual(ok);
    expect(runs).toEqual(['refund:o-1']);
  });
});

describe('the environment configures the store', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetSharedDocumentClient();
  });

  test('TOOL_HANDLER_APPROVALS_TABLE makes toolHandler keep state in that table through the shared client', async () => {
    const { tableName } = await createTestTable();
    Object.assign(process.env, {
      TOOL_HANDLER_APPROVALS_TABLE: tableName,
      AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(),
      ...LOCAL_AWS_ENV,
    });
    resetSharedDocumentClient();
    let runs = 0;
    const handler = toolHandler([tool({ name: 'once', run: () => ++runs })], { replies: false });
    const first = await handler({ tool: 'once', run_id: 'r', call_id: 'c' }, lambdaContext(10_000));
    const again = await handler({ tool: 'once', run_id: 'r', call_id: 'c' }, lambdaContext(10_000));
    expect(again).toEqual(first);
    expect(runs).toBe(1);
    const pending = toolHandler([tool({ name: 'gate', requiresApproval: true, run: () => 1 })], { replies: false });
    await expect(pending({ tool: 'gate' }, lambdaContext(10_000))).resolves.toMatchObject({ status: 'pending_approval' });
  });
});

import * as z from 'zod';
import {
  AdapterError,
  ApprovalDenied,
  ApprovalNotFound,
  MemoryApprovalStore,
  tool,
  toolHandler,
  ToolExecutor,
  ToolNotFound,
  ToolUsageError,
  type Reply,
} from '../../lambda';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

function setUp(options: { tools?: string[]; store?: MemoryApprovalStore; fail?: () => boolean } = {}) {
  const runs: string[] = [];
  const refund = tool({
    name: 'refund',
    input: z.object({ orderId: z.string() }),
    requiresApproval: true,
    run: async ({ orderId }, ctx) => {
      runs.push(`${orderId}:${ctx.approvalId}`);
      await sleep(20);
      if (options.fail?.()) throw new Error('payment provider down');
      return { refunded: orderId };
    },
  });
  const transfer = tool({
    name: 'transfer',
    input: z.object({ amount: z.number() }),
    requiresApproval: ({ amount }) => amount > 100,
    run: ({ amount }) => ({ sent: amount }),
  });
  const store = options.store ?? new MemoryApprovalStore();
  const executor = new ToolExecutor({ tools: [refund, transfer], approvals: store });
  const handler = toolHandler(executor, { replies: false, ...(options.tools ? { tools: options.tools } : {}) });
  const invoke = (event: unknown) => handler(event, lambdaContext(10_000)) as Promise<Reply>;
  return { store, handler, invoke, runs };
}

const call = { tool: 'refund', args: { orderId: 'o-1' }, run_id: 'run-1', call_id: 'call-1' };

describe('approval lifecycle (memory store)', () => {
  test('pending, approved, resumed, resumed again, redelivered', async () => {
    const { store, invoke, runs } = setUp();
    const pending = await invoke(call);
    expect(pending).toMatchObject({ status: 'pending_approval', tool: 'refund', run_id: 'run-1', call_id: 'call-1' });
    const approvalId = (pending as { approval_id: string }).approval_id;
    expect(approvalId).toMatch(/^apr_/);
    expect(runs).toEqual([]);

    expect(await invoke(call)).toEqual(pending); // same call, same approval
    expect(await store.get(approvalId)).toMatchObject({ status: 'pending', tool: 'refund', args: { orderId: 'o-1' }, owner: 'handler' });

    await store.decide(approvalId, { approved: true, by: 'alice' });
    expect(await invoke(call)).toEqual(pending); // approved but unclaimed: still pending for the call

    const done = await invoke({ approval_id: approvalId });
    expect(done).toEqual({
      status: 'ok',
      tool: 'refund',
      run_id: 'run-1',
      call_id: 'call-1',
      result: { refunded: 'o-1' },
      approval_id: approvalId,
    });
    expect(runs).toEqual([`o-1:${approvalId}`]);

    const again = await invoke({ approval_id: approvalId });
    expect(again).toEqual({ status: 'already_done', tool: 'refund', run_id: 'run-1', call_id: 'call-1', approval_id: approvalId, result: { refunded: 'o-1' } });
    expect(await invoke(call)).toEqual(again);
    expect(runs).toHaveLength(1);
  });

  test('denial: the resume and the redelivered call are ApprovalDenied with the reason', async () => {
    const { store, invoke, runs } = setUp();
    const { approval_id } = (await invoke(call)) as { approval_id: string };
    await store.decide(approval_id, { approved: false, by: 'bob', reason: 'order already refunded' });
    const resume = invoke({ approval_id });
    await expect(resume).rejects.toBeInstanceOf(ApprovalDenied);
    // The reason reaches the caller; who denied it stays in the approval's record.
    await expect(invoke({ approval_id })).rejects.toThrow(`Approval ${approval_id} for tool refund was denied: order already refunded`);
    await expect(invoke({ approval_id })).rejects.not.toThrow(/bob/);
    await expect(invoke(call)).rejects.toBeInstanceOf(ApprovalDenied);
    expect(runs).toEqual([]);
  });

  test('a resume before the decision is a ToolUsageError; an unknown id ApprovalNotFound', async () => {
    const { invoke } = setUp();
    const { approval_id } = (await invoke(call)) as { approval_id: string };
    await expect(invoke({ approval_id })).rejects.toThrow(ToolUsageError);
    await expect(invoke({ approval_id })).rejects.toThrow(/not decided yet/);
    await expect(invoke({ approval_id: 'apr_unknown' })).rejects.toBeInstanceOf(ApprovalNotFound);
  });

  test('an expired approval is ApprovalNotFound', async () => {
    let now = Date.now();
    const store = new MemoryApprovalStore({ ttlSeconds: 60, now: () => now });
    const { invoke } = setUp({ store });
    const { approval_id } = (await invoke(call)) as { approval_id: string };
    await store.decide(approval_id, { approved: true, by: 'alice' });
    now += 61_000;
    await expect(invoke({ approval_id })).rejects.toBeInstanceOf(ApprovalNotFound);
  });

  test('a tool removed from the allowlist before the resume is ToolNotFound, and no claim is taken', async () => {
    const store = new MemoryApprovalStore();
    const before = setUp({ store });
    const { approval_id } = (await before.invoke(call)) as { approval_id: string };
    await store.decide(approval_id, { approved: true, by: 'alice' });

    const after = setUp({ store, tools: ['transfer'] });
    await expect(after.invoke({ approval_id })).rejects.toBeInstanceOf(ToolNotFound);
    expect(after.runs).toEqual([]);
    expect((await store.get(approval_id))?.claimedUntil).toBeUndefined();

    await expect(before.invoke({ approval_id })).resolves.toMatchObject({ status: 'ok' });
  });

  test('an approval not owned by `handler` is a ToolUsageError', async () => {
    const { store, invoke } = setUp();
    await store.create({ approvalId: 'apr_foreign', tool: 'refund', args: { orderId: 'x' }, runId: 'r', callId: 'c', fingerprint: 'f', owner: 'billing-system' });
    await store.decide('apr_foreign', { approved: true, by: 'alice' });
    await expect(invoke({ approval_id: 'apr_foreign' })).rejects.toThrow(/owned by billing-system/);
  });

  test('concurrent resumes: exactly one runs the tool, the others are already_done', async () => {
    const { store, invoke, runs } = setUp();
    const { approval_id } = (await invoke(call)) as { approval_id: string };
    await store.decide(approval_id, { approved: true, by: 'alice' });
    const replies = await Promise.all(Array.from({ length: 20 }, () => invoke({ approval_id })));
    expect(runs).toHaveLength(1);
    expect(replies.filter((r) => r.status === 'ok')).toHaveLength(1);
    expect(replies.filter((r) => r.status === 'already_done')).toHaveLength(19);
  });

  test('a tool that threw releases its claim, so the retried resume runs it', async () => {
    let failing = true;
    const { store, invoke, runs } = setUp({ fail: () => failing });
    const { approval_id } = (await invoke(call)) as { approval_id: string };
    await store.decide(approval_id, { approved: true, by: 'alice' });
    await expect(invoke({ approval_id })).rejects.toMatchObject({ name: 'ToolFailed', retryable: true });
    failing = false;
    await expect(invoke({ approval_id })).resolves.toMatchObject({ status: 'ok', result: { refunded: 'o-1' } });
    expect(runs).toHaveLength(2);
  });

  test('a resume that timed out keeps its claim until its invocation ends', async () => {
    const store = new MemoryApprovalStore();
    const stuck = tool({
      name: 'refund',
      requiresApproval: true,
      run: () => new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
    });
    const handler = toolHandler(new ToolExecutor({ tools: [stuck], approvals: store }), { timeout: 0.1, margin: 0, replies: false });
    const pending = (await handler({ tool: 'refund', run_id: 'r', call_id: 'c' }, lambdaContext(10_000))) as { approval_id: string };
    await store.decide(pending.approval_id, { approved: true, by: 'alice' });
    // The invocation ends 300 ms from now; the tool's budget is 100 ms.
    await expect(handler({ approval_id: pending.approval_id }, lambdaContext(300))).rejects.toMatchObject({ name: 'ToolTimeout' });
    await expect(handler({ approval_id: pending.approval_id }, lambdaContext(10_000))).resolves.toMatchObject({ status: 'already_done' });
    await sleep(250);
    const record = await store.get(pending.approval_id);
    expect(record?.claimedUntil).toBeLessThanOrEqual(Date.now());
    const claim = await store.claim(pending.approval_id, { until: Date.now() + 1000 });
    expect(claim.claimed).toBe(true);
  });

  test('requiresApproval as a predicate over the parsed args', async () => {
    const { invoke } = setUp();
    await expect(invoke({ tool: 'transfer', args: { amount: 50 } })).resolves.toMatchObject({ status: 'ok', result: { sent: 50 } });
    await expect(invoke({ tool: 'transfer', args: { amount: 500 } })).resolves.toMatchObject({ status: 'pending_approval' });
  });

  test('the same ids re-sent with other args are a ToolUsageError', async () => {
    const { invoke } = setUp();
    await invoke(call);
    await expect(invoke({ ...call, args: { orderId: 'o-2' } })).rejects.toThrow(/first sent with another tool or args/);
  });

  test('without an approval store, a tool that requires approval fails and says so', async () => {
    const refund = tool({ name: 'refund', requiresApproval: true, run: () => 'never' });
    const handler = toolHandler(new ToolExecutor({ tools: [refund], approvals: false }), { replies: false });
    const failure = handler({ tool: 'refund' }, lambdaContext(10_000));
    await expect(failure).rejects.toBeInstanceOf(AdapterError);
    await expect(handler({ tool: 'refund' }, lambdaContext(10_000))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/no approval store is configured/),
    });
  });

  test('through SQS: a pending approval is a success; a premature resume goes to the dead-letter path', async () => {
    const { store, handler } = setUp();
    const first = await handler(sqsEvent(sqsRecord('m-1', call)), lambdaContext(10_000));
    expect(first).toEqual({ batchItemFailures: [] });
    const [approval] = await store.list({ pending: true });
    expect(approval).toMatchObject({ tool: 'refund', runId: 'run-1', callId: 'call-1', status: 'pending' });
    const premature = await handler(sqsEvent(sqsRecord('m-2', { approval_id: approval.approvalId })), lambdaContext(10_000));
    expect(premature).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    await store.decide(approval.approvalId, { approved: true, by: 'alice' });
    const resumed = await handler(sqsEvent(sqsRecord('m-3', { approval_id: approval.approvalId })), lambdaContext(10_000));
    expect(resumed).toEqual({ batchItemFailures: [] });
    expect(await store.list({ pending: true })).toEqual([]);
    expect(await store.get(approval.approvalId)).toMatchObject({ hasResult: true, result: { refunded: 'o-1' } });
  });
});

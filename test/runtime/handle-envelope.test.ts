import * as z from 'zod';
import {
  AdapterError,
  ApprovalDenied,
  ApprovalNotFound,
  CallInProgress,
  handleEnvelope,
  MemoryApprovalStore,
  tool,
  ToolExecutor,
  ToolFailed,
  ToolHandlerError,
  ToolNotFound,
  ToolTimeout,
  ToolUsageError,
  type ToolContext,
} from '../../lambda';
import { callFingerprint } from '../../lambda/ids';
import { captureLogs } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const returning = (value: () => unknown) => tool({ name: 'give', run: value });
const executorOf = (...tools: Parameters<typeof tool>[0][]) =>
  new ToolExecutor({ tools: tools.map((options) => tool(options)), approvals: false });

describe('replies', () => {
  test.each([
    ['undefined becomes null', () => undefined, null],
    ['a Date becomes its JSON string', () => new Date(0), '1970-01-01T00:00:00.000Z'],
    ['nested undefined is dropped', () => ({ a: 1, b: undefined }), { a: 1 }],
    ['an async result is awaited', async () => [1, 'two'], [1, 'two']],
  ])('%s', async (_name, run, expected) => {
    const executor = new ToolExecutor({ tools: [returning(run)], approvals: false });
    await expect(handleEnvelope(executor, { tool: 'give', run_id: 'r', call_id: 'c' })).resolves.toEqual({
      status: 'ok',
      tool: 'give',
      run_id: 'r',
      call_id: 'c',
      result: expected,
    });
  });

  test.each([
    ['a BigInt', () => ({ n: BigInt(1) }), /BigInt/],
    ['a cycle', () => {
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      return cycle;
    }, /circular/i],
    ['a bare function', () => () => 1, /not JSON/],
  ])('a result holding %s is a ToolFailed', async (_name, run, message) => {
    const executor = new ToolExecutor({ tools: [returning(run)], approvals: false });
    const failure = handleEnvelope(executor, { tool: 'give' });
    await expect(failure).rejects.toBeInstanceOf(ToolFailed);
    await expect(handleEnvelope(executor, { tool: 'give' })).rejects.toThrow(message);
  });

  test('a tool that throws is a retryable ToolFailed whose cause is the original', async () => {
    const original = new RangeError('out of stock');
    const executor = executorOf({ name: 'fail', run: () => Promise.reject(original) });
    const error = await handleEnvelope(executor, { tool: 'fail' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolFailed);
    expect(error).toBeInstanceOf(AdapterError);
    expect(error).toMatchObject({ name: 'ToolFailed', retryable: true, cause: original });
    expect((error as Error).message).toMatch(/RangeError: out of stock/);
  });
});

describe('errors', () => {
  test.each([
    [new ToolUsageError('x'), 'ToolUsageError', false, false],
    [new ToolNotFound('x'), 'ToolNotFound', false, false],
    [new ApprovalNotFound('x'), 'ApprovalNotFound', false, false],
    [new ApprovalDenied('x'), 'ApprovalDenied', false, true],
    [new ToolFailed('x'), 'ToolFailed', true, true],
    [new ToolTimeout('x'), 'ToolTimeout', true, true],
    [new CallInProgress('x'), 'CallInProgress', true, true],
    [new AdapterError('x', { retryable: true }), 'AdapterError', true, true],
  ])('%p has name %s, retryable %s', (error, name, retryable, isAdapterError) => {
    expect(error.name).toBe(name);
    expect(error.retryable).toBe(retryable);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(ToolHandlerError);
    expect(error instanceof AdapterError).toBe(isAdapterError);
  });
});

describe('handleEnvelope', () => {
  test('the tool gets its context: ids, source, deadline and signal', async () => {
    let seen: ToolContext | undefined;
    const executor = executorOf({ name: 'peek', run: (_args: unknown, ctx: ToolContext) => void (seen = ctx) });
    const before = Date.now();
    await handleEnvelope(executor, { tool: 'peek', run_id: 'r', call_id: 'c' });
    expect(seen).toMatchObject({ runId: 'r', callId: 'c', source: 'direct' });
    expect(seen!.signal).toBeInstanceOf(AbortSignal);
    expect(seen!.deadline).toBeGreaterThanOrEqual(before + 60_000);
    expect(seen!.deadline).toBeLessThan(before + 61_000);
    expect(seen!.approvalId).toBeUndefined();
  });

  test('`tools` limits what runs', async () => {
    const executor = executorOf({ name: 'a', run: () => 1 }, { name: 'b', run: () => 2 });
    await expect(handleEnvelope(executor, { tool: 'a' }, { tools: ['a'] })).resolves.toMatchObject({ result: 1 });
    await expect(handleEnvelope(executor, { tool: 'b' }, { tools: ['a'] })).rejects.toBeInstanceOf(ToolNotFound);
    await expect(handleEnvelope(executor, { tool: 'c' })).rejects.toThrow(/Tool c is unknown/);
  });

  test('an aborted signal ends the call as a ToolTimeout', async () => {
    const controller = new AbortController();
    const executor = executorOf({ name: 'wait', run: () => new Promise((resolve) => setTimeout(resolve, 5_000).unref()) });
    const pending = handleEnvelope(executor, { tool: 'wait' }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ToolTimeout);
    const already = handleEnvelope(executor, { tool: 'wait' }, { signal: controller.signal });
    await expect(already).rejects.toThrow(/not started/);
  });

  test('a deadline in the past runs nothing', async () => {
    const run = jest.fn();
    const executor = executorOf({ name: 'spy', run });
    await expect(handleEnvelope(executor, { tool: 'spy' }, { deadline: Date.now() - 1 })).rejects.toBeInstanceOf(ToolTimeout);
    expect(run).not.toHaveBeenCalled();
  });

  test('a resume without an approval store says so', async () => {
    const executor = executorOf({ name: 'a', run: () => 1 });
    await expect(handleEnvelope(executor, { approval_id: 'apr_1' })).rejects.toThrow(/no approval store is configured/);
  });

  test('stored args are validated again at resume, and the claim is released when they no longer fit', async () => {
    const store = new MemoryApprovalStore();
    const strict = tool({ name: 'pay', input: z.object({ amount: z.number().max(10) }), requiresApproval: true, run: ({ amount }) => amount });
    const fingerprint = callFingerprint('pay', { amount: 99 });
    await store.create({ approvalId: 'apr_x', tool: 'pay', args: { amount: 99 }, runId: 'r', callId: 'c', fingerprint });
    await store.decide('apr_x', { approved: true, by: 'alice' });
    const executor = new ToolExecutor({ tools: [strict], approvals: store });
    await expect(handleEnvelope(executor, { approval_id: 'apr_x' })).rejects.toThrow(/args\.amount/);
    expect((await store.get('apr_x'))?.claimedUntil).toBeUndefined();
  });
});

describe('an unknown tool', () => {
  const named = (name: string) => ({ name, run: () => name });

  test('is refused naming the tools the handler runs, only those the allowlist lets through', async () => {
    const executor = executorOf(named('add'), named('refund'), named('secret_admin'));
    await expect(handleEnvelope(executor, { tool: 'ad', args: {} }, { tools: ['add', 'refund'] })).rejects.toThrow(
      new ToolNotFound('Tool ad is unknown to this handler or not in its allowlist. It runs: add, refund.'),
    );
    await expect(handleEnvelope(executor, { tool: 'secret_admin', args: {} }, { tools: ['add'] })).rejects.toThrow(
      new ToolNotFound('Tool secret_admin is unknown to this handler or not in its allowlist. It runs: add.'),
    );
  });

  test('names at most 20 of them, then how many more', async () => {
    const executor = executorOf(...Array.from({ length: 23 }, (_, i) => named(`t${i}`)));
    const error = await handleEnvelope(executor, { tool: 'nope', args: {} }).catch((e: Error) => e);
    expect((error as Error).message).toBe(
      `Tool nope is unknown to this handler or not in its allowlist. It runs: ${Array.from({ length: 20 }, (_, i) => `t${i}`).join(', ')} and 3 more.`,
    );
  });
});

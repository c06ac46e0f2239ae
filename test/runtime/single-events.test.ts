import * as z from 'zod';
import { tool, toolHandler, ToolExecutor, ToolNotFound, ToolTimeout, ToolUsageError, type ReplyPublisher } from '../../lambda';
import { captureLogs, eventBridgeEvent, lambdaContext } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const seen: Array<{ runId: string; callId: string; source: string }> = [];
const add = tool({
  name: 'add',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }, ctx) => {
    seen.push({ runId: ctx.runId, callId: ctx.callId, source: ctx.source });
    return a + b;
  },
});
const handler = toolHandler(new ToolExecutor({ tools: [add], approvals: false, calls: false }), { replies: false });

beforeEach(() => {
  seen.length = 0;
});

describe('EventBridge events', () => {
  test('the envelope is `detail`; the reply is returned; ids derive from the event id', async () => {
    const event = eventBridgeEvent('evt-1', { tool: 'add', args: { a: 2, b: 3 } });
    const first = await handler(event, lambdaContext(10_000));
    const again = await handler(event, lambdaContext(10_000, 'another-request'));
    expect(first).toMatchObject({ status: 'ok', tool: 'add', result: 5 });
    expect(again).toEqual(first);
    expect(seen[0].source).toBe('events:agents.planner');
    const other = await handler(eventBridgeEvent('evt-1', { tool: 'add', args: { a: 2, b: 3 } }, 'agents.other'), lambdaContext(10_000));
    expect(other).toMatchObject({ status: 'ok' });
    expect((other as { run_id: string }).run_id).not.toBe((first as { run_id: string }).run_id);
  });

  test('an error is thrown so that Lambda retries and then keeps the event', async () => {
    await expect(handler(eventBridgeEvent('evt-2', { tool: 'missing' }), lambdaContext(10_000))).rejects.toBeInstanceOf(ToolNotFound);
    await expect(handler(eventBridgeEvent('evt-3', { tool: 'add', args: {} }), lambdaContext(10_000))).rejects.toThrow(/args\.a/);
  });

  test('a zero budget throws ToolTimeout without running', async () => {
    await expect(handler(eventBridgeEvent('evt-4', { tool: 'add', args: { a: 1, b: 1 } }), lambdaContext(500))).rejects.toBeInstanceOf(ToolTimeout);
    expect(seen).toHaveLength(0);
  });

  test('the reply is published to the reply bus; a failed publish throws a retryable error', async () => {
    const published: unknown[] = [];
    const ok: ReplyPublisher = { publish: async (reply) => void published.push(reply) };
    const withBus = toolHandler(new ToolExecutor({ tools: [add], approvals: false, calls: false }), { replies: ok });
    await withBus(eventBridgeEvent('evt-5', { tool: 'add', args: { a: 1, b: 1 } }), lambdaContext(10_000));
    expect(published).toEqual([expect.objectContaining({ status: 'ok', result: 2 })]);

    const down: ReplyPublisher = { publish: async () => Promise.reject(new Error('bus down')) };
    const failing = toolHandler(new ToolExecutor({ tools: [add], approvals: false, calls: false }), { replies: down });
    await expect(failing(eventBridgeEvent('evt-6', { tool: 'add', args: { a: 1, b: 1 } }), lambdaContext(10_000))).rejects.toMatchObject({
      name: 'AdapterError',
      retryable: true,
    });
  });
});

describe('direct invokes', () => {
  test('the event is the envelope; ids derive from the request id, stable across retries', async () => {
    const first = await handler({ tool: 'add', args: { a: 1, b: 2 } }, lambdaContext(10_000, 'req-42'));
    const retry = await handler({ tool: 'add', args: { a: 1, b: 2 } }, lambdaContext(10_000, 'req-42'));
    expect(first).toMatchObject({ status: 'ok', result: 3 });
    expect(retry).toEqual(first);
    expect(seen[0].source).toBe('lambda');
  });

  test('given ids are kept', async () => {
    const reply = await handler({ tool: 'add', args: { a: 1, b: 2 }, run_id: 'run-1', call_id: 'call-1' }, lambdaContext(10_000));
    expect(reply).toEqual({ status: 'ok', tool: 'add', run_id: 'run-1', call_id: 'call-1', result: 3 });
  });

  test('errors are thrown with their class', async () => {
    await expect(handler({ tool: 'add', args: { a: 1, b: 2 }, approved: true }, lambdaContext(10_000))).rejects.toBeInstanceOf(ToolUsageError);
    await expect(handler('not an object', lambdaContext(10_000))).rejects.toBeInstanceOf(ToolUsageError);
  });

  test('without a context the timeout alone bounds the call', async () => {
    const slow = tool({ name: 'slow', run: (_a, ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))) });
    const bounded = toolHandler(new ToolExecutor({ tools: [slow], approvals: false }), { timeout: 0.1, replies: false });
    await expect(bounded({ tool: 'slow' })).rejects.toBeInstanceOf(ToolTimeout);
  });
});

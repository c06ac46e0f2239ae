import * as z from 'zod';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import { captureLogs, fifoRecord, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tool named `slow` that takes `ms` and records the most runs it saw at once. */
function concurrencyProbe(ms: number) {
  let running = 0;
  let most = 0;
  const probe = tool({
    name: 'slow',
    run: async () => {
      most = Math.max(most, ++running);
      await sleep(ms);
      running--;
    },
  });
  return { probe, most: () => most };
}

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const add = tool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b });
const explode = tool({
  name: 'explode',
  run: () => {
    throw new Error('boom');
  },
});

function handlerWith(tools: Parameters<typeof toolHandler>[0], options: Parameters<typeof toolHandler>[1] = {}) {
  const executor = Array.isArray(tools) ? new ToolExecutor({ tools, approvals: false, calls: false }) : tools;
  return toolHandler(executor as ToolExecutor, { replies: false, ...options });
}

describe('SQS standard batches', () => {
  test('an empty batch returns an empty list', async () => {
    const handler = handlerWith([add]);
    await expect(handler(sqsEvent(), lambdaContext(10_000))).resolves.toEqual({ batchItemFailures: [] });
  });

  test('partial failures list exactly the failed records', async () => {
    const handler = handlerWith([add, explode]);
    const result = await handler(
      sqsEvent(
        sqsRecord('ok-1', { tool: 'add', args: { a: 1, b: 2 } }),
        sqsRecord('bad-args', { tool: 'add', args: { a: 'one', b: 2 } }),
        sqsRecord('unknown-tool', { tool: 'nope' }),
        sqsRecord('throws', { tool: 'explode' }),
        sqsRecord('not-json', '{"tool": "add",'),
        sqsRecord('ok-2', { tool: 'add', args: { a: 5, b: 5 } }),
      ),
      lambdaContext(10_000),
    );
    expect(result).toEqual({
      batchItemFailures: [
        { itemIdentifier: 'bad-args' },
        { itemIdentifier: 'unknown-tool' },
        { itemIdentifier: 'throws' },
        { itemIdentifier: 'not-json' },
      ],
    });
  });

  // How much faster that makes a batch is measured in `npm run bench` (batch parallelism), not here.
  test('ten 200 ms tools run concurrently: all ten at once', async () => {
    const { probe, most } = concurrencyProbe(200);
    const handler = handlerWith([probe]);
    const records = Array.from({ length: 10 }, (_, i) => sqsRecord(`m${i}`, { tool: 'slow' }));
    const result = await handler(sqsEvent(...records), lambdaContext(30_000));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(most()).toBe(10);
  });

  test('at most `concurrency` records run at once', async () => {
    const { probe, most } = concurrencyProbe(20);
    const handler = handlerWith([probe], { concurrency: 3 });
    const records = Array.from({ length: 12 }, (_, i) => sqsRecord(`m${i}`, { tool: 'slow' }));
    await expect(handler(sqsEvent(...records), lambdaContext(30_000))).resolves.toEqual({ batchItemFailures: [] });
    expect(most()).toBe(3);
  });

  test('a tool past the deadline is aborted and its record failed; records on time succeed', async () => {
    let aborted = false;
    const stubborn = tool({
      name: 'stubborn',
      run: async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 3_000).unref()); // ignores its signal
        return 'late';
      },
    });
    const handler = handlerWith([stubborn, add], { timeout: 0.3 });
    const started = Date.now();
    const result = await handler(
      sqsEvent(sqsRecord('late', { tool: 'stubborn' }), sqsRecord('fast', { tool: 'add', args: { a: 1, b: 1 } })),
      lambdaContext(30_000),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'late' }] });
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    await sleep(50); // the timed-out call's log line follows the batch's return
    expect(logs.lines().find((line) => line.message_id === 'late')).toMatchObject({
      error: { type: 'ToolTimeout', retryable: true },
    });
  });

  test('records not started by the deadline are failed without running', async () => {
    const ran: string[] = [];
    const slow = tool({
      name: 'slow',
      input: z.object({ id: z.string() }),
      run: async ({ id }, ctx) => {
        ran.push(id);
        await sleep(150);
        if (ctx.signal.aborted) throw new Error('aborted');
      },
    });
    const handler = handlerWith([slow], { timeout: 0.2, concurrency: 1 });
    const records = ['a', 'b', 'c', 'd'].map((id) => sqsRecord(id, { tool: 'slow', args: { id } }));
    const result = await handler(sqsEvent(...records), lambdaContext(30_000));
    expect(ran).toEqual(['a', 'b']);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }, { itemIdentifier: 'c' }, { itemIdentifier: 'd' }] });
  });

  test('a zero budget runs nothing and fails every record as retryable', async () => {
    const run = jest.fn();
    const handler = handlerWith([tool({ name: 'spy', run })], { margin: 1 });
    const result = await handler(sqsEvent(sqsRecord('a', { tool: 'spy' }), sqsRecord('b', { tool: 'spy' })), lambdaContext(900));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }] });
    expect(run).not.toHaveBeenCalled();
  });

  test('a redelivered message derives the same ids, and other messages other ids', async () => {
    const seen: Array<{ runId: string; callId: string }> = [];
    const record = tool({ name: 'record', run: (_args, ctx) => void seen.push({ runId: ctx.runId, callId: ctx.callId }) });
    const handler = handlerWith([record]);
    const body = { tool: 'record' };
    await handler(sqsEvent(sqsRecord('m-1', body)), lambdaContext(10_000));
    await handler(sqsEvent(sqsRecord('m-1', body)), lambdaContext(10_000));
    await handler(sqsEvent(sqsRecord('m-2', body)), lambdaContext(10_000));
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[2].runId).not.toBe(seen[0].runId);
    expect(seen[0].runId).not.toBe(seen[0].callId);
  });

  test('a redelivered message does not run its tool twice when the call store is on', async () => {
    const run = jest.fn(() => 'once');
    const executor = new ToolExecutor({ tools: [tool({ name: 'charge', run })], approvals: new MemoryApprovalStore() });
    const handler = toolHandler(executor, { replies: false });
    const event = sqsEvent(sqsRecord('m-1', { tool: 'charge' }));
    await expect(handler(event, lambdaContext(10_000))).resolves.toEqual({ batchItemFailures: [] });
    await expect(handler(event, lambdaContext(10_000))).resolves.toEqual({ batchItemFailures: [] });
    expect(run).toHaveBeenCalledTimes(1);
  });

  test('one log line per call with ids and status, never args or result values', async () => {
    const secret = tool({ name: 'secret', run: () => ({ token: 'result-secret' }) });
    const handler = handlerWith([secret, add]);
    await handler(
      sqsEvent(
        sqsRecord('m-1', { tool: 'secret', args: { password: 'args-secret' }, run_id: 'r1', call_id: 'c1' }),
        sqsRecord('m-2', { tool: 'add', args: { a: 'x', b: 1 } }),
      ),
      lambdaContext(10_000),
    );
    const lines = logs.lines().sort((a, b) => String(a.message_id).localeCompare(String(b.message_id)));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ tool: 'secret', run_id: 'r1', call_id: 'c1', approval_id: null, message_id: 'm-1', status: 'ok' });
    expect(typeof lines[0].duration_ms).toBe('number');
    expect(lines[1]).toMatchObject({ tool: 'add', message_id: 'm-2', error: { type: 'ToolUsageError' } });
    const text = JSON.stringify(lines);
    expect(text).not.toContain('args-secret');
    expect(text).not.toContain('result-secret');
  });
});

describe('SQS FIFO batches', () => {
  test('a group stops after its first failure while another group goes on, each in order', async () => {
    const order: string[] = [];
    const step = tool({
      name: 'step',
      input: z.object({ id: z.string(), fail: z.boolean().optional() }),
      run: async ({ id, fail }) => {
        order.push(id);
        await sleep(5);
        if (fail) throw new Error(`step ${id} failed`);
      },
    });
    const handler = handlerWith([step]);
    const result = await handler(
      sqsEvent(
        fifoRecord('a1', 'A', { tool: 'step', args: { id: 'a1' } }),
        fifoRecord('b1', 'B', { tool: 'step', args: { id: 'b1' } }),
        fifoRecord('a2', 'A', { tool: 'step', args: { id: 'a2', fail: true } }),
        fifoRecord('b2', 'B', { tool: 'step', args: { id: 'b2' } }),
        fifoRecord('a3', 'A', { tool: 'step', args: { id: 'a3' } }),
        fifoRecord('b3', 'B', { tool: 'step', args: { id: 'b3' } }),
      ),
      lambdaContext(10_000),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'a2' }, { itemIdentifier: 'a3' }] });
    expect(order.filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(order.filter((id) => id.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
  });

  test('at most `concurrency` groups run at once', async () => {
    const { probe, most } = concurrencyProbe(10);
    const handler = handlerWith([probe], { concurrency: 2 });
    const records = Array.from({ length: 8 }, (_, i) => fifoRecord(`m${i}`, `g${i % 4}`, { tool: 'slow' }));
    await expect(handler(sqsEvent(...records), lambdaContext(10_000))).resolves.toEqual({ batchItemFailures: [] });
    expect(most()).toBe(2);
  });
});

describe('SQS with a reply bus', () => {
  function bus(fail = false) {
    const published: Array<Record<string, unknown>> = [];
    const publisher: ReplyPublisher = {
      publish: async (reply) => {
        if (fail) throw new Error('bus down');
        published.push(reply as unknown as Record<string, unknown>);
      },
    };
    return { published, publisher };
  }

  test('every reply and every error reply is published; an unfixable error published is done', async () => {
    const { published, publisher } = bus();
    const handler = handlerWith([add, explode], { replies: publisher });
    const result = await handler(
      sqsEvent(
        sqsRecord('ok', { tool: 'add', args: { a: 1, b: 2 }, run_id: 'r', call_id: 'c' }),
        sqsRecord('usage', { tool: 'add', args: {}, run_id: 'r', call_id: 'c2' }),
        sqsRecord('retryable', { tool: 'explode', run_id: 'r', call_id: 'c3' }),
      ),
      lambdaContext(10_000),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'retryable' }] });
    expect(published).toEqual(
      expect.arrayContaining([
        { status: 'ok', tool: 'add', run_id: 'r', call_id: 'c', result: 3 },
        expect.objectContaining({ status: 'error', tool: 'add', call_id: 'c2', error: expect.objectContaining({ type: 'ToolUsageError' }) }),
        expect.objectContaining({ status: 'error', tool: 'explode', call_id: 'c3', error: expect.objectContaining({ type: 'ToolFailed', retryable: true }) }),
      ]),
    );
  });

  test('when publishing fails, even a success is failed so the redelivery publishes it', async () => {
    const { publisher } = bus(true);
    const handler = handlerWith([add], { replies: publisher });
    const result = await handler(
      sqsEvent(sqsRecord('ok', { tool: 'add', args: { a: 1, b: 2 } }), sqsRecord('usage', { tool: 'add', args: {} })),
      lambdaContext(10_000),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'ok' }, { itemIdentifier: 'usage' }] });
  });
});

describe('SQS records the handler cannot read', () => {
  test('a record without a body is failed, and says what it got', async () => {
    const handler = handlerWith([add]);
    const record = { ...sqsRecord('no-body', {}), body: undefined as unknown as string };
    await expect(handler(sqsEvent(record), lambdaContext(10_000))).resolves.toEqual({ batchItemFailures: [{ itemIdentifier: 'no-body' }] });
    expect(logs.lines()[0]).toMatchObject({ error: { type: 'ToolUsageError', message: 'Invalid SQS record: `body` must be a string, got undefined (missing).' } });
  });
});

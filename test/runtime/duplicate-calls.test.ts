import { CallInProgress, MemoryApprovalStore, tool, toolHandler, ToolExecutor, ToolUsageError } from '../../lambda';
import { captureLogs, eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

function setUp(behaviour: { delayMs?: number; failTimes?: number; calls?: false } = {}) {
  let failures = behaviour.failTimes ?? 0;
  let runs = 0;
  const charge = tool({
    name: 'charge',
    run: async () => {
      runs++;
      if (behaviour.delayMs) await sleep(behaviour.delayMs);
      if (failures-- > 0) throw new Error('card declined by a flaky gateway');
      return { charged: runs };
    },
  });
  const executor = new ToolExecutor({ tools: [charge], approvals: new MemoryApprovalStore(), ...(behaviour.calls === false ? { calls: false } : {}) });
  const handler = toolHandler(executor, { replies: false });
  return { handler, runs: () => runs };
}

const call = { tool: 'charge', args: { amount: 5 }, run_id: 'r', call_id: 'c' };

describe('duplicate calls (memory store)', () => {
  test('a redelivered finished call gets the kept reply without running again', async () => {
    const { handler, runs } = setUp();
    const first = await handler(call, lambdaContext(10_000));
    const second = await handler(call, lambdaContext(10_000));
    expect(second).toEqual(first);
    expect(first).toMatchObject({ status: 'ok', result: { charged: 1 } });
    expect(runs()).toBe(1);
  });

  test('a delivery that arrives while the first runs gets CallInProgress', async () => {
    const { handler, runs } = setUp({ delayMs: 100 });
    const first = handler(call, lambdaContext(10_000));
    await sleep(10);
    await expect(handler(call, lambdaContext(10_000))).rejects.toBeInstanceOf(CallInProgress);
    await expect(first).resolves.toMatchObject({ status: 'ok' });
    expect(runs()).toBe(1);
  });

  test('a failed run removes the record so a retry may run it', async () => {
    const { handler, runs } = setUp({ failTimes: 1 });
    await expect(handler(call, lambdaContext(10_000))).rejects.toMatchObject({ name: 'ToolFailed', retryable: true });
    await expect(handler(call, lambdaContext(10_000))).resolves.toMatchObject({ status: 'ok', result: { charged: 2 } });
    expect(runs()).toBe(2);
  });

  test('the same ids with other args are a ToolUsageError', async () => {
    const { handler } = setUp();
    await handler(call, lambdaContext(10_000));
    await expect(handler({ ...call, args: { amount: 6 } }, lambdaContext(10_000))).rejects.toBeInstanceOf(ToolUsageError);
  });

  test('a run that timed out keeps its record until its invocation ends', async () => {
    let runs = 0;
    const slow = tool({
      name: 'charge',
      run: async () => {
        runs++;
        await sleep(runs === 1 ? 1_000 : 0);
        return 'charged';
      },
    });
    const handler = toolHandler(new ToolExecutor({ tools: [slow], approvals: new MemoryApprovalStore() }), {
      timeout: 0.05,
      margin: 0,
      replies: false,
    });
    // The first invocation ends 300 ms from now; its tool's budget is 50 ms.
    await expect(handler(call, lambdaContext(300))).rejects.toMatchObject({ name: 'ToolTimeout' });
    await expect(handler(call, lambdaContext(10_000))).rejects.toBeInstanceOf(CallInProgress);
    await sleep(300);
    await expect(handler(call, lambdaContext(10_000))).resolves.toMatchObject({ status: 'ok', result: 'charged' });
    expect(runs).toBe(2);
  });

  test('with `calls: false` nothing is suppressed', async () => {
    const { handler, runs } = setUp({ calls: false });
    await handler(call, lambdaContext(10_000));
    await handler(call, lambdaContext(10_000));
    expect(runs()).toBe(2);
  });
});

/**
 * A lease outlives its invocation as far as the source's redelivery
 * allows. Each case has a holder whose post-run write never lands (its `finish` fails), as when
 * DynamoDB fails until the invocation's end: every other copy is answered without running, while the
 * holder's own redelivery (a crash) still runs it.
 */
describe('copies of a call whose post-run write was lost', () => {
  function losingFinishes() {
    let runs = 0;
    const store = new MemoryApprovalStore();
    const charge = tool({ name: 'charge', run: () => ({ charged: ++runs }) });
    const calls = { begin: store.begin.bind(store), abandon: store.abandon.bind(store), finish: () => Promise.reject(new Error('DynamoDB down')) };
    const handler = toolHandler(new ToolExecutor({ tools: [charge], approvals: store, calls }), { replies: false, margin: 0.05 });
    return { handler, runs: () => runs };
  }

  test("SQS: another message with the same call is acknowledged as already_done, now and long after; the holder's own redelivery runs it", async () => {
    const { handler, runs } = losingFinishes();
    expect(await handler(sqsEvent(sqsRecord('m-1', call)), lambdaContext(200))).toEqual({ batchItemFailures: [] });
    expect(runs()).toBe(1);
    const copy = await handler(sqsEvent(sqsRecord('m-2', call)), lambdaContext(10_000));
    expect(copy).toEqual({ batchItemFailures: [] });
    await sleep(250); // the holder's invocation is over
    expect(await handler(sqsEvent(sqsRecord('m-3', call)), lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
    expect(runs()).toBe(1);
    const line = logs.lines().find((l) => l.message_id === 'm-2');
    expect(line).toMatchObject({ status: 'already_done', run_id: 'r', call_id: 'c' });
    // The holder's message coming back (it was deleted here, but SQS may deliver it again after a crash) takes over.
    expect(await handler(sqsEvent(sqsRecord('m-1', call)), lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
    expect(runs()).toBe(2);
  });

  test("SQS: a copy of the holder's own message while it runs waits like a retry (acknowledging it would delete the holder's message)", async () => {
    const store = new MemoryApprovalStore();
    const charge = tool({ name: 'charge', run: async () => (await sleep(100), 'charged') });
    const handler = toolHandler(new ToolExecutor({ tools: [charge], approvals: store }), { replies: false });
    const first = handler(sqsEvent(sqsRecord('m-1', call)), lambdaContext(10_000));
    await sleep(10);
    expect(await handler(sqsEvent(sqsRecord('m-1', call)), lambdaContext(10_000))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    expect(await first).toEqual({ batchItemFailures: [] });
  });

  test('EventBridge: a second event with the same call, until Lambda could retry the first, is answered already_done', async () => {
    const { handler, runs } = losingFinishes();
    await expect(handler(eventBridgeEvent('e-1', call), lambdaContext(200))).resolves.toMatchObject({ status: 'ok' });
    await sleep(250);
    await expect(handler(eventBridgeEvent('e-2', call), lambdaContext(10_000))).resolves.toEqual({
      status: 'already_done',
      tool: 'charge',
      run_id: 'r',
      call_id: 'c',
    });
    expect(runs()).toBe(1);
  });

  test('a direct invoke holds only while it runs: its caller retries on its own timing', async () => {
    const { handler, runs } = losingFinishes();
    await expect(handler(call, lambdaContext(200))).resolves.toMatchObject({ status: 'ok' });
    await sleep(250);
    await expect(handler(call, lambdaContext(10_000))).resolves.toMatchObject({ status: 'ok' });
    expect(runs()).toBe(2);
  });
});

/**
 * Once the tool has returned, a slow `finish` or `complete` write must neither
 * get the SQS record reported failed nor make a direct invoke throw, and the handler returns before
 * the invocation's end. Remaining time 1500 ms (default margin 1 s: a 500 ms deadline), the first
 * post-run write held 2500 ms before it reaches the table.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { countingHandler } from '../support/counting-tools';
import { holdRequests } from '../support/sdk-middleware';

const REMAINING_MS = 1500;
const HOLD_MS = 2500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

/** Holds the first UpdateItem whose input holds `marker` (finish sets state `done`; complete starts `SET #completedAt`). */
function holdFirst(client: Parameters<typeof holdRequests>[0], marker: string) {
  return holdRequests(client, { command: 'UpdateItemCommand', ms: HOLD_MS, matches: (input) => JSON.stringify(input).includes(marker) });
}

function warnings() {
  return logs.lines().filter((line) => line.level === 'WARN').map((line) => line.message);
}

describe('a slow write after the tool ran', () => {
  test('SQS: the record is not reported failed, the handler returns in time, and the redelivery does not run the tool again', async () => {
    const { client, runs, handler } = await countingHandler();
    const hold = holdFirst(client, '"done"');
    const event = sqsEvent(sqsRecord('m-1', { tool: 'charge', args: { id: 'c1' }, run_id: 'r', call_id: 'c1' }));

    const started = Date.now();
    const first = (await handler(event, lambdaContext(REMAINING_MS))) as SQSBatchResponse;
    expect(Date.now() - started).toBeLessThan(REMAINING_MS);
    expect(first).toEqual({ batchItemFailures: [] });
    expect(hold.held).toBe(1);
    expect(warnings()).toContainEqual(expect.stringMatching(/finish did not finish before the invocation's end/));

    // A duplicate delivery while the lease stands is refused without running the tool...
    expect(await handler(event, lambdaContext(10_000))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
    // ...and once the held write has landed it gets the kept reply.
    await sleep(HOLD_MS - (Date.now() - started) + 300);
    expect(await handler(event, lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
    expect(runs.get('c1')).toBe(1);
  });

  test('direct invoke: the reply comes back, no throw, before the invocation ends', async () => {
    const { client, runs, handler } = await countingHandler();
    holdFirst(client, '"done"');
    const call = { tool: 'charge', args: { id: 'c2' }, run_id: 'r', call_id: 'c2' };
    const started = Date.now();
    await expect(handler(call, lambdaContext(REMAINING_MS))).resolves.toEqual({
      status: 'ok',
      tool: 'charge',
      run_id: 'r',
      call_id: 'c2',
      result: { charged: 'c2' },
    });
    expect(Date.now() - started).toBeLessThan(REMAINING_MS);
    await sleep(HOLD_MS - (Date.now() - started) + 300);
    await expect(handler(call, lambdaContext(10_000))).resolves.toMatchObject({ status: 'ok', result: { charged: 'c2' } });
    expect(runs.get('c2')).toBe(1);
  });

  test('a resume whose complete is slow: acknowledged once, the approved tool runs once', async () => {
    const { client, store, runs, handler } = await countingHandler();
    const call = { tool: 'refund', args: { id: 'a1' }, run_id: 'r', call_id: 'a1' };
    const { approval_id } = (await handler(call, lambdaContext(10_000))) as { approval_id: string };
    await store.decide(approval_id, { approved: true, by: 'alice' });
    holdFirst(client, '"UpdateExpression":"SET #completedAt');
    const resume = sqsEvent(sqsRecord('m-2', { approval_id }));

    const started = Date.now();
    expect(await handler(resume, lambdaContext(REMAINING_MS))).toEqual({ batchItemFailures: [] });
    expect(Date.now() - started).toBeLessThan(REMAINING_MS);
    await sleep(HOLD_MS - (Date.now() - started) + 300);
    expect(await handler(resume, lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
    await expect(handler({ approval_id }, lambdaContext(10_000))).resolves.toMatchObject({
      status: 'already_done',
      result: { refunded: 'a1' },
    });
    expect(runs.get('a1')).toBe(1);
  });
});

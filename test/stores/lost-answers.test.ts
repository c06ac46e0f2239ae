/**
 * A lease or claim whose write reached the table but whose answer was lost (the
 * connection reset after the table applied it) is recognised as one's own when the SDK retries, so
 * the call runs once instead of being refused (CallInProgress) or acknowledged unrun (already_done).
 */
import { callFingerprint } from '../../lambda/ids';
import { lambdaContext, sqsEvent, sqsRecord, captureLogs } from '../support/events';
import { countingHandler } from '../support/counting-tools';
import { CONDITIONAL_CHECK_FAILED, loseAnswers, replayLater } from '../support/sdk-middleware';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const RETRYING = { client: { maxAttempts: 3 } };

describe('begin (call items)', () => {
  test('an SDK retry of our own begin sees our lease and starts the call', async () => {
    const { client, runs, handler } = await countingHandler(RETRYING);
    const lost = loseAnswers(client, { command: 'UpdateItemCommand' });
    await expect(handler({ tool: 'charge', args: { id: 'b1' }, run_id: 'r', call_id: 'b1' }, lambdaContext(10_000))).resolves.toMatchObject({
      status: 'ok',
      result: { charged: 'b1' },
    });
    expect(lost.lost).toBe(1);
    expect(runs.get('b1')).toBe(1);
  });

  test('an SDK retry of our own takeover of a lapsed lease is not refused', async () => {
    const { client, store, runs, handler } = await countingHandler(RETRYING);
    const call = { tool: 'charge', args: { id: 'b2' }, run_id: 'r', call_id: 'b2' };
    // A delivery whose invocation died while running: its lease lapsed.
    await store.begin({ runId: 'r', callId: 'b2' }, { fingerprint: callFingerprint('charge', call.args), leaseUntil: Date.now() - 1 });
    // The redelivery's upsert passes; its takeover is applied but the answer is lost.
    const lost = loseAnswers(client, { command: 'UpdateItemCommand', after: 1 });
    await expect(handler(sqsEvent(sqsRecord('m-b2', call)), lambdaContext(10_000))).resolves.toEqual({ batchItemFailures: [] });
    expect(lost.lost).toBe(1);
    expect(runs.get('b2')).toBe(1);
  });
});

describe('late attempts', () => {
  test('a takeover attempt applied late, after the call finished, does not undo the finish', async () => {
    const { client, store, runs, handler } = await countingHandler(RETRYING);
    const call = { tool: 'charge', args: { id: 'b3' }, run_id: 'r', call_id: 'b3' };
    await store.begin({ runId: 'r', callId: 'b3' }, { fingerprint: callFingerprint('charge', call.args), leaseUntil: Date.now() - 1 });
    // The redelivery's upsert passes; its takeover is sent again 300 ms later (after the finish).
    const late = replayLater(client, { command: 'UpdateItemCommand', after: 1, ms: 300 });
    await expect(handler(call, lambdaContext(10_000))).resolves.toMatchObject({ status: 'ok' });
    expect(await late.replayed).toMatchObject({ name: 'ConditionalCheckFailedException' });
    late.remove();
    // The kept reply still stands: a redelivery after the lease's end gets it without running again.
    await expect(handler(call, lambdaContext(10_000))).resolves.toMatchObject({ status: 'ok', result: { charged: 'b3' } });
    expect(runs.get('b3')).toBe(1);
  });
});

describe('claim (approval items)', () => {
  async function approved(context: Awaited<ReturnType<typeof countingHandler>>, id: string) {
    const { approval_id } = (await context.handler({ tool: 'refund', args: { id }, run_id: 'r', call_id: id }, lambdaContext(10_000))) as {
      approval_id: string;
    };
    await context.store.decide(approval_id, { approved: true, by: 'alice' });
    return approval_id;
  }

  test('an SDK retry of our own claim is claimed again, and the approved tool runs once', async () => {
    const context = await countingHandler(RETRYING);
    const approvalId = await approved(context, 'a1');
    const lost = loseAnswers(context.client, { command: 'UpdateItemCommand' });
    expect(await context.handler(sqsEvent(sqsRecord('m-a1', { approval_id: approvalId })), lambdaContext(10_000))).toEqual({
      batchItemFailures: [],
    });
    expect(lost.lost).toBe(1);
    expect(context.runs.get('a1')).toBe(1);
    await expect(context.handler({ approval_id: approvalId }, lambdaContext(10_000))).resolves.toMatchObject({
      status: 'already_done',
      result: { refunded: 'a1' },
    });
  });

  test('a refused retry followed by a read that shows our token counts as claimed', async () => {
    const context = await countingHandler(RETRYING);
    const approvalId = await approved(context, 'a2');
    const lost = loseAnswers(context.client, { command: 'UpdateItemCommand', retryAnswer: CONDITIONAL_CHECK_FAILED });
    await expect(context.handler({ approval_id: approvalId }, lambdaContext(10_000))).resolves.toMatchObject({
      status: 'ok',
      result: { refunded: 'a2' },
    });
    expect(lost.lost).toBe(1);
    expect(context.runs.get('a2')).toBe(1);
  });

  test('a claim whose answers are lost: its retry is refused (a claim is never taken twice), the read that follows shows our token, so it is claimed', async () => {
    const context = await countingHandler(RETRYING);
    const approvalId = await approved(context, 'a4');
    const lost = loseAnswers(context.client, { command: 'UpdateItemCommand', times: 3 });
    await expect(context.handler({ approval_id: approvalId }, lambdaContext(10_000))).resolves.toMatchObject({
      status: 'ok',
      result: { refunded: 'a4' },
    });
    // The claim's first attempt and the completion's: the claim's retry is refused, not applied again.
    expect(lost.lost).toBe(2);
    expect(context.runs.get('a4')).toBe(1);
  });

  test('a caller-chosen token: the same token claims a live claim again, another token is refused', async () => {
    const context = await countingHandler();
    const approvalId = await approved(context, 'a3');
    const until = Date.now() + 10_000;
    await expect(context.store.claim(approvalId, { until, token: 'tok-1' })).resolves.toMatchObject({ claimed: true, token: 'tok-1' });
    await expect(context.store.claim(approvalId, { until, token: 'tok-1' })).resolves.toMatchObject({ claimed: true, token: 'tok-1' });
    await expect(context.store.claim(approvalId, { until, token: 'tok-2' })).resolves.toMatchObject({ claimed: false });
    await expect(context.store.claim(approvalId, { until })).resolves.toMatchObject({ claimed: false });
  });
});

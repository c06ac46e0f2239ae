/**
 * A limited claim (how AgentCore Gateway's `resume_approval` claims: only the approvals its own
 * calls requested, `runIdPrefix`, and of those only its caller's, `requestedBy`) takes nothing
 * outside its limits and shows nothing of it: such an approval answers as missing, in every state,
 * and stays unclaimed; on DynamoDB the limits are part of the claim's condition, so refusing costs no
 * round trip more than any refused claim.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Caller } from '../../lambda/caller';
import { callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { MemoryApprovalStore } from '../../lambda/stores/memory';
import type { ApprovalStore, CreateApprovalInput } from '../../lambda/stores/types';
import { createTestTable } from '../support/dynamo';
import { recordRequests, type RequestRecorder } from '../support/sdk-middleware';

const T0 = 1_700_000_000_000;
const UNTIL = T0 + 30_000;

function approval(id: string, runId: string, requestedBy?: Caller): CreateApprovalInput {
  const args = { orderId: id };
  return { approvalId: id, tool: 'refund', args, runId, callId: 'c-1', fingerprint: callFingerprint('refund', args), ...(requestedBy ? { requestedBy } : {}) };
}

const alice: Caller = { id: 'alice', kind: 'user', source: 'agentcore', verified: true, issuer: 'https://issuer.example' };

let client: DynamoDBDocumentClient | undefined;

const harnesses: Array<[string, () => Promise<ApprovalStore>]> = [
  ['MemoryApprovalStore', async () => new MemoryApprovalStore({ now: () => T0 })],
  [
    'DynamoApprovalStore',
    async () => {
      const table = await createTestTable();
      client = table.client;
      return new DynamoApprovalStore({ tableName: table.tableName, client: table.client, now: () => T0 });
    },
  ],
];

describe.each(harnesses)('%s', (_name, make) => {
  let store: ApprovalStore;
  beforeEach(async () => {
    store = await make();
  });

  async function created(id: string, runId: string, decision?: { approved: boolean }, requestedBy?: Caller): Promise<void> {
    await store.create(approval(id, runId, requestedBy));
    if (decision) await store.decide(id, { ...decision, by: 'arn:aws:sts::123456789012:assumed-role/Approver/alice', reason: 'checked' });
  }

  test('an approved approval outside the prefix: missing, unclaimed; its own claim then takes it', async () => {
    await created('apr_direct', 'run-direct', { approved: true });
    expect(await store.claim('apr_direct', { until: UNTIL, runIdPrefix: 'agc_', token: 't-1' })).toEqual({ claimed: false, record: undefined });
    expect((await store.get('apr_direct'))?.claimedUntil).toBeUndefined();
    expect(await store.claim('apr_direct', { until: UNTIL, token: 't-2' })).toMatchObject({ claimed: true, token: 't-2' });
  });

  test.each([
    ['undecided', undefined],
    ['denied', { approved: false }],
  ])('an approval outside the prefix, %s: missing too (its state is not told)', async (_state, decision) => {
    await created('apr_direct', 'run-direct', decision);
    expect(await store.claim('apr_direct', { until: UNTIL, runIdPrefix: 'agc_' })).toEqual({ claimed: false, record: undefined });
  });

  test('claimed, or finished, by its own resume: still missing to the prefix', async () => {
    await created('apr_direct', 'run-direct', { approved: true });
    const own = await store.claim('apr_direct', { until: UNTIL, token: 'own' });
    expect(own.claimed).toBe(true);
    expect(await store.claim('apr_direct', { until: UNTIL, runIdPrefix: 'agc_' })).toEqual({ claimed: false, record: undefined });
    await store.complete('apr_direct', 'own', { refunded: 'secret-result' });
    expect(await store.claim('apr_direct', { until: UNTIL, runIdPrefix: 'agc_' })).toEqual({ claimed: false, record: undefined });
  });

  test('an approval inside the prefix is claimed as any other, and refused as any other', async () => {
    await created('apr_gw', 'agc_run', { approved: true });
    await created('apr_gw_pending', 'agc_run2');
    expect(await store.claim('apr_gw', { until: UNTIL, runIdPrefix: 'agc_' })).toMatchObject({ claimed: true, record: { runId: 'agc_run' } });
    expect(await store.claim('apr_gw_pending', { until: UNTIL, runIdPrefix: 'agc_' })).toMatchObject({
      claimed: false,
      record: { status: 'pending', runId: 'agc_run2' },
    });
  });

  test("a claim for one caller: another caller's approval, or one no caller asked for, is missing and stays unclaimed", async () => {
    await created('apr_alice', 'agc_run', { approved: true }, alice);
    await created('apr_nobody', 'agc_run2', { approved: true });
    const bobs = { until: UNTIL, runIdPrefix: 'agc_', requestedBy: 'bob' };
    expect(await store.claim('apr_alice', bobs)).toEqual({ claimed: false, record: undefined });
    expect(await store.claim('apr_nobody', bobs)).toEqual({ claimed: false, record: undefined });
    // A claim for no caller (a Gateway call that proves none) sees only approvals no caller asked for.
    expect(await store.claim('apr_alice', { until: UNTIL, runIdPrefix: 'agc_', requestedBy: null })).toEqual({ claimed: false, record: undefined });
    expect((await store.get('apr_alice'))?.claimedUntil).toBeUndefined();
    expect(await store.claim('apr_alice', { until: UNTIL, runIdPrefix: 'agc_', requestedBy: 'alice' })).toMatchObject({
      claimed: true,
      record: { requestedBy: alice },
    });
    expect(await store.claim('apr_nobody', { until: UNTIL, runIdPrefix: 'agc_', requestedBy: null })).toMatchObject({ claimed: true });
  });

  test('with an empty tool allowlist the prefix still hides the approval', async () => {
    await created('apr_direct', 'run-direct', { approved: true });
    expect(await store.claim('apr_direct', { until: UNTIL, runIdPrefix: 'agc_', allowedTools: new Set() })).toEqual({
      claimed: false,
      record: undefined,
    });
  });
});

describe('DynamoApprovalStore round trips', () => {
  let store: ApprovalStore;
  let requests: RequestRecorder;
  beforeEach(async () => {
    store = await harnesses[1][1]();
    requests = recordRequests(client!);
  });

  test('the prefix is in the claim\'s condition: a refusal is one refused write and its read, as any refused claim', async () => {
    await store.create(approval('apr_direct', 'run-direct'));
    await store.decide('apr_direct', { approved: true, by: 'alice' });
    requests.reset();
    await store.claim('apr_direct', { until: UNTIL, runIdPrefix: 'agc_' });
    const sent = requests.sent.map((s) => s.command);
    expect(sent).toEqual(['UpdateItemCommand', 'GetItemCommand']);
    expect(String(requests.sent[0].input.ConditionExpression)).toContain('begins_with(#runId, ');
  });

  test("the caller is in the claim's condition too: another caller's claim is refused by the write itself", async () => {
    await store.create(approval('apr_alice', 'agc_run', alice));
    await store.decide('apr_alice', { approved: true, by: 'boss' });
    requests.reset();
    await store.claim('apr_alice', { until: UNTIL, runIdPrefix: 'agc_', requestedBy: 'bob' });
    expect(requests.sent.map((s) => s.command)).toEqual(['UpdateItemCommand', 'GetItemCommand']);
    const condition = requests.sent[0].input as { ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> };
    expect(Object.values(condition.ExpressionAttributeNames)).toContain('requestedById');
    expect(JSON.stringify(condition.ExpressionAttributeValues)).toContain('"bob"');
  });
});

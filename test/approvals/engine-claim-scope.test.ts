/**
 * The approvals engine takes a claim's limits (how a Gateway `resume_approval` claims: its run-id
 * prefix, and the caller it acts for) into the store's claim: an approval outside them comes back as
 * no record at all, unclaimed. The whole path through the bundles:
 * test/construct/gateway-bundle-hostile.test.ts.
 */
import { approvalsEngine, type ApprovalsEngine } from '../../lambda/approvals/engine';
import { approvalIdFor } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';

const T0 = Date.UTC(2030, 0, 1);
let store: DynamoApprovalStore;
let engine: ApprovalsEngine;

beforeEach(async () => {
  const table = await createTestTable();
  store = new DynamoApprovalStore({ tableName: table.tableName, client: table.client, now: () => T0, ttlSeconds: 3600 });
  engine = approvalsEngine({ store, allowed: new Set(['refund']), claimMaxMs: 30_000, now: () => T0 });
});

const claim = (approvalId: string, extra: Record<string, unknown> = {}) => engine({ op: 'claim', approval_id: approvalId, token: 't-1', until: T0 + 10_000, ...extra });

test('an approval whose run id lacks the prefix: no record, not claimed; without the prefix it is claimed', async () => {
  await engine({ op: 'create', tool: 'refund', args: { orderId: 'o1' }, run_id: 'r-direct', call_id: 'c1' });
  const id = approvalIdFor('r-direct', 'c1');
  await store.decide(id, { approved: true, by: 'alice' });
  expect(await claim(id, { run_id_prefix: 'agc_' })).toEqual({ ok: true, claimed: false });
  expect((await store.read(id))?.claimedUntil).toBeUndefined();
  expect(await claim(id)).toMatchObject({ ok: true, claimed: true, record: { runId: 'r-direct' } });
});

test('an approval whose run id has the prefix is claimed', async () => {
  await engine({ op: 'create', tool: 'refund', args: { orderId: 'o2' }, run_id: 'agc_run', call_id: 'c2' });
  const id = approvalIdFor('agc_run', 'c2');
  await store.decide(id, { approved: true, by: 'alice' });
  expect(await claim(id, { run_id_prefix: 'agc_' })).toMatchObject({ ok: true, claimed: true, record: { runId: 'agc_run' } });
});

test("a claim for one caller: another caller's approval is no record, unclaimed; the caller's own is claimed", async () => {
  const alice = { id: 'alice', kind: 'user', source: 'agentcore', verified: true };
  await engine({ op: 'create', tool: 'refund', args: { orderId: 'o3' }, run_id: 'agc_alice', call_id: 'c3', requested_by: alice });
  const id = approvalIdFor('agc_alice', 'c3');
  await store.decide(id, { approved: true, by: 'boss' });
  expect(await claim(id, { run_id_prefix: 'agc_', requested_by: 'bob' })).toEqual({ ok: true, claimed: false });
  expect(await claim(id, { run_id_prefix: 'agc_', requested_by: null })).toEqual({ ok: true, claimed: false });
  expect((await store.read(id))?.claimedUntil).toBeUndefined();
  expect(await claim(id, { run_id_prefix: 'agc_', requested_by: 'alice' })).toMatchObject({ ok: true, claimed: true, record: { requestedBy: alice } });
});

test.each([
  ['empty', ''],
  ['not a string', 5],
])('a prefix that is %s is a bad request', async (_label, prefix) => {
  expect(await claim('apr_x', { run_id_prefix: prefix })).toMatchObject({ ok: false, error: { type: 'ToolUsageError', message: expect.stringContaining('run_id_prefix') } });
});

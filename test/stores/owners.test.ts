/**
 * Owners are a boundary: two owners on one table, through the real DynamoDB store, engine and
 * API on dynalite, tried as owner A against owner B's approvals and calls. Each attack here passed on
 * the earlier design (keys without the owner, lists by Scan): A's API listed and decided B's
 * approvals, A's engine returned B's records, and A could take ids and kept replies that B will use.
 */
import { approvalsApi } from '../../lambda/approvals/api';
import { approvalsEngine } from '../../lambda/approvals/engine';
import { ToolUsageError } from '../../lambda/errors';
import { approvalIdFor, callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { MemoryApprovalStore } from '../../lambda/stores/memory';
import type { CreateApprovalInput } from '../../lambda/stores/types';
import { createTestTable } from '../support/dynamo';
import { functionUrlEvent } from '../support/function-url-event';

const T0 = Date.UTC(2030, 0, 1);
const TTL_S = 3600;
const ARGS = { orderId: 'o-1' };

let time: number;
let a: DynamoApprovalStore;
let b: DynamoApprovalStore;

beforeEach(async () => {
  time = T0;
  const { tableName, client } = await createTestTable();
  const options = { tableName, client, now: () => time, ttlSeconds: TTL_S };
  a = new DynamoApprovalStore({ ...options, owner: 'team-a' });
  b = new DynamoApprovalStore({ ...options, owner: 'team-b' });
});

/** What the engine creates for a call: the id from the run and call ids, the fingerprint from tool and args. */
function call(runId: string, callId: string, args: Record<string, unknown> = ARGS): CreateApprovalInput {
  return { approvalId: approvalIdFor(runId, callId), tool: 'refund', args, runId, callId, fingerprint: callFingerprint('refund', args) };
}

async function approvedInB(runId = 'r1', callId = 'c1'): Promise<string> {
  const input = call(runId, callId);
  await b.create(input);
  await b.decide(input.approvalId, { approved: true, by: 'bob' });
  return input.approvalId;
}

describe("A's store sees nothing of B's", () => {
  test("get, read, claim, decide, release and complete of B's approval: not found, nothing returned, nothing changed", async () => {
    const id = await approvedInB();
    expect(await a.get(id)).toBeUndefined();
    expect(await a.read(id)).toBeUndefined();
    expect(await a.claim(id, { until: T0 + 30_000, token: 't' })).toEqual({ claimed: false, record: undefined });
    await expect(a.decide(id, { approved: false, by: 'mallory' })).rejects.toMatchObject({ name: 'ApprovalNotFound' });
    await a.release(id, 't');
    await a.complete(id, 't', { forged: true });
    const theirs = await b.read(id);
    expect(theirs).toMatchObject({ status: 'approved', decidedBy: 'bob', hasResult: false });
    expect(theirs?.claimedUntil).toBeUndefined();
    expect(await b.claim(id, { until: T0 + 30_000, token: 'b-1' })).toMatchObject({ claimed: true });
  });

  test("lists: A's pending list, full list and every status hold A's approvals only", async () => {
    await approvedInB('r1', 'c1');
    await b.create(call('r2', 'c2'));
    await a.create(call('r3', 'c3'));
    for (const status of [undefined, 'pending', 'approved', 'denied', 'expired'] as const) {
      const page = await a.listPage({ status });
      for (const record of page.records) expect(record.owner).toBe('team-a');
    }
    expect((await a.list()).map((r) => r.runId)).toEqual(['r3']);
    expect((await a.list({ pending: true })).map((r) => r.runId)).toEqual(['r3']);
    expect((await b.list()).map((r) => r.runId).sort()).toEqual(['r1', 'r2']);
  });

  test("a `next` position of B's list is refused by A's list, never followed into B's partition", async () => {
    for (let i = 0; i < 3; i++) await b.create(call('r', `c${i}`));
    const first = await b.listPage({ limit: 1 });
    expect(first.next).toBeDefined();
    await expect(a.listPage({ limit: 1, next: first.next })).rejects.toThrow(ToolUsageError);
    // Forged: A's owner in the index key, B's item key.
    const forged = JSON.parse(Buffer.from(first.next!, 'base64url').toString('utf8'));
    const spliced = Buffer.from(JSON.stringify({ ...forged, owner: 'team-a' }), 'utf8').toString('base64url');
    await expect(a.listPage({ limit: 1, next: spliced })).rejects.toThrow(/not a position this list returned/);
  });

  test("expiry: A's expirer never marks B's approvals", async () => {
    await b.create(call('r1', 'c1'));
    await a.create(call('r2', 'c2'));
    time = T0 + TTL_S * 1000 + 1;
    expect((await a.expireDue()).expired.map((r) => r.runId)).toEqual(['r2']);
    expect((await b.read(approvalIdFor('r1', 'c1')))?.expiredAt).toBeUndefined();
  });

  test('a store refuses to create an approval for another owner', async () => {
    await expect(a.create({ ...call('r1', 'c1'), owner: 'team-b' })).rejects.toThrow(/owner team-a only/);
    expect(await b.read(approvalIdFor('r1', 'c1'))).toBeUndefined();
  });
});

describe('no key of A can collide with one of B (same run and call ids)', () => {
  test('approvals: the same id in both owners, each its own approval, tool and args', async () => {
    const input = call('r1', 'c1');
    const squatted = await a.create({ ...input, tool: 'other', args: { evil: true }, fingerprint: callFingerprint('other', { evil: true }) });
    const mine = await b.create(input);
    expect(mine.created).toBe(true);
    expect(mine.record).toMatchObject({ owner: 'team-b', tool: 'refund', args: ARGS, status: 'pending' });
    expect(squatted.record).toMatchObject({ owner: 'team-a', tool: 'other' });
    await b.decide(input.approvalId, { approved: true, by: 'bob' });
    expect(await b.claim(input.approvalId, { until: T0 + 30_000, token: 't' })).toMatchObject({ claimed: true, record: { tool: 'refund', args: ARGS } });
  });

  test("calls: A cannot forge, erase or take B's kept replies", async () => {
    const key = { runId: 'r1', callId: 'c1' };
    const begun = await b.begin(key, { fingerprint: 'fp', leaseUntil: T0 + 30_000 });
    if (begun.state !== 'started') throw new Error('expected started');
    await b.finish(key, begun.token, { status: 'ok', result: 'real' });
    // A, with the same ids and another fingerprint, starts a call of its own (no mismatch, no kept reply of B's)...
    const theirs = await a.begin(key, { fingerprint: 'forged', leaseUntil: T0 + 30_000 });
    expect(theirs.state).toBe('started');
    if (theirs.state !== 'started') return;
    await a.finish(key, theirs.token, { status: 'ok', result: 'forged' });
    await a.abandon(key, theirs.token);
    // ...and B's kept reply is untouched.
    expect(await b.begin(key, { fingerprint: 'fp', leaseUntil: T0 + 30_000 })).toEqual({ state: 'done', reply: { status: 'ok', result: 'real' } });
  });
});

describe("A's engine against B's approvals", () => {
  const engine = () => approvalsEngine({ store: a, allowed: new Set(['refund']), claimMaxMs: 60_000, now: () => time });

  test("claim of B's approved approval, with the allowlist or with `tools: []`: not claimed, and no record of B's in the answer", async () => {
    const id = await approvedInB();
    for (const tools of [undefined, [], ['refund']]) {
      const response = await engine()({ op: 'claim', approval_id: id, token: 't', until: T0 + 30_000, ...(tools ? { tools } : {}) });
      expect(response).toEqual({ ok: true, claimed: false });
    }
    expect((await b.read(id))?.claimedUntil).toBeUndefined();
  });

  test("create with B's run_id and call_id makes A's own approval; B's record is never returned", async () => {
    await approvedInB('r1', 'c1');
    const response = await engine()({ op: 'create', tool: 'refund', args: { orderId: 'o-666' }, run_id: 'r1', call_id: 'c1' });
    expect(response).toMatchObject({ ok: true, created: true, record: { owner: 'team-a', args: { orderId: 'o-666' }, status: 'pending' } });
    expect(JSON.stringify(response)).not.toContain('bob');
    expect(await b.read(approvalIdFor('r1', 'c1'))).toMatchObject({ args: ARGS, status: 'approved' });
  });

  test("release and complete of B's claim by its token change nothing of B's", async () => {
    const id = await approvedInB();
    await b.claim(id, { until: T0 + 30_000, token: 'b-token' });
    expect(await engine()({ op: 'complete', approval_id: id, token: 'b-token', result: { forged: true } })).toEqual({ ok: true });
    expect(await engine()({ op: 'release', approval_id: id, token: 'b-token' })).toEqual({ ok: true });
    expect(await b.read(id)).toMatchObject({ claimedUntil: T0 + 30_000, hasResult: false });
    expect((await b.read(id))?.completedAt).toBeUndefined();
  });
});

describe("A's approvals API against B's approvals", () => {
  const api = () => approvalsApi({ store: a });
  const send = async (method: string, path: string, options: Parameters<typeof functionUrlEvent>[2] = {}) => {
    const result = await api()(functionUrlEvent(method, path, options));
    return { status: result.statusCode, body: JSON.parse(result.body!) };
  };

  test("GET of B's approval is 404, its list holds none of B's, and a decision is 404 that decides nothing", async () => {
    const input = call('r1', 'c1');
    await b.create(input);
    expect(await send('GET', `/approvals/${input.approvalId}`)).toMatchObject({ status: 404, body: { error: { type: 'not_found' } } });
    for (const query of [{}, { status: 'pending' }] as Array<Record<string, string>>) {
      expect(await send('GET', '/approvals', { query })).toEqual({ status: 200, body: { approvals: [] } });
    }
    const decision = { approved: true, fingerprint: input.fingerprint };
    expect(await send('POST', `/approvals/${input.approvalId}/decision`, { body: decision })).toMatchObject({ status: 404 });
    expect(await b.read(input.approvalId)).toMatchObject({ status: 'pending' });
  });
});

describe('the memory store: every owner in one map, the owner a field (one process, several executors)', () => {
  test("keeps another owner's approval, shows it, and never claims it", async () => {
    const store = new MemoryApprovalStore({ owner: 'team-a', now: () => time });
    const { record } = await store.create({ ...call('r1', 'c1'), owner: 'team-b' });
    expect(record.owner).toBe('team-b');
    await store.decide(record.approvalId, { approved: true, by: 'bob' });
    expect(await store.claim(record.approvalId, { until: T0 + 30_000 })).toMatchObject({ claimed: false, record: { owner: 'team-b' } });
  });
});

import { approvalsEngine, type ApprovalsEngine } from '../../lambda/approvals/engine';
import { approvalIdFor, callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { injectFault, THROTTLING } from '../support/sdk-middleware';

/** The approvals engine on dynalite: it trusts nothing its caller sends. */

const T0 = Date.UTC(2030, 0, 1);
let time: number;
let store: DynamoApprovalStore;
let engine: ApprovalsEngine;
let client: Awaited<ReturnType<typeof createTestTable>>['client'];

beforeEach(async () => {
  time = T0;
  const table = await createTestTable();
  client = table.client;
  store = new DynamoApprovalStore({ tableName: table.tableName, client, now: () => time, ttlSeconds: 3600 });
  engine = approvalsEngine({ store, allowed: new Set(['refund', 'add']), claimMaxMs: 30_000, now: () => time });
});

const create = { op: 'create', tool: 'refund', args: { orderId: 'o1' }, run_id: 'r1', call_id: 'c1' };
const approvalId = approvalIdFor('r1', 'c1');

async function approve(): Promise<void> {
  await engine(create);
  await store.decide(approvalId, { approved: true, by: 'alice' });
}

describe('create', () => {
  test('derives the approval id and fingerprint itself, owned by its own owner', async () => {
    const response = await engine(create);
    expect(response).toMatchObject({
      ok: true,
      created: true,
      record: { approvalId, fingerprint: callFingerprint('refund', { orderId: 'o1' }), owner: 'handler', status: 'pending' },
    });
  });

  test.each(['approval_id', 'fingerprint', 'owner', 'decision'])('refuses a request that names %s (it decides those itself)', async (key) => {
    const response = await engine({ ...create, [key]: 'x' });
    expect(response).toMatchObject({ ok: false, error: { type: 'ToolUsageError', retryable: false, message: expect.stringContaining(key) } });
    expect(await store.read(approvalId)).toBeUndefined();
  });

  test('never changes tool, args or fingerprint of an existing approval', async () => {
    await engine(create);
    const again = await engine({ ...create, tool: 'add', args: { a: 1 } });
    expect(again).toMatchObject({ ok: true, created: false, record: { tool: 'refund', args: { orderId: 'o1' } } });
    expect(await store.read(approvalId)).toMatchObject({ tool: 'refund', fingerprint: callFingerprint('refund', { orderId: 'o1' }) });
  });

  test('a tool outside its own allowlist is ToolNotFound', async () => {
    expect(await engine({ ...create, tool: 'delete_everything' })).toMatchObject({ ok: false, error: { type: 'ToolNotFound' } });
  });
});

describe('claim, release, complete', () => {
  test('claims an approved approval; a repeat with the same token wins again; another token does not', async () => {
    await approve();
    const claim = { op: 'claim', approval_id: approvalId, token: 't1', until: T0 + 10_000 };
    expect(await engine(claim)).toMatchObject({ ok: true, claimed: true, record: { claimedUntil: T0 + 10_000 } });
    expect(await engine(claim)).toMatchObject({ ok: true, claimed: true });
    expect(await engine({ ...claim, token: 't2' })).toMatchObject({ ok: true, claimed: false, record: { claimedUntil: T0 + 10_000 } });
  });

  test("caps a claim at the handler function's timeout, whatever the caller asks", async () => {
    await approve();
    const response = await engine({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 3_600_000 });
    expect(response).toMatchObject({ claimed: true, record: { claimedUntil: T0 + 30_000 } });
  });

  test('claims only tools in both allowlists: its own and the one the caller sends', async () => {
    await approve();
    expect(await engine({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 1000, tools: ['add'] })).toMatchObject({
      claimed: false,
    });
    const narrow = approvalsEngine({ store, allowed: new Set(['add']), claimMaxMs: 30_000, now: () => time });
    expect(await narrow({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 1000, tools: ['refund'] })).toMatchObject({
      claimed: false,
    });
    expect(await engine({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 1000, tools: ['refund'] })).toMatchObject({
      claimed: true,
    });
  });

  test('pending and denied approvals are never claimed', async () => {
    await engine(create);
    expect(await engine({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 1000 })).toMatchObject({
      claimed: false,
      record: { status: 'pending' },
    });
    await store.decide(approvalId, { approved: false, by: 'bob' });
    expect(await engine({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 1000 })).toMatchObject({
      claimed: false,
      record: { status: 'denied' },
    });
  });

  test('complete needs the token and is final; release after it changes nothing', async () => {
    await approve();
    await engine({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 1000 });
    expect(await engine({ op: 'complete', approval_id: approvalId, token: 'other', result: 1 })).toEqual({ ok: true });
    expect((await store.read(approvalId))?.completedAt).toBeUndefined();
    expect(await engine({ op: 'complete', approval_id: approvalId, token: 't', result: { n: 1 } })).toEqual({ ok: true });
    expect(await engine({ op: 'release', approval_id: approvalId, token: 't' })).toEqual({ ok: true });
    expect(await store.read(approvalId)).toMatchObject({ completedAt: T0, result: { n: 1 } });
    expect(await engine({ op: 'claim', approval_id: approvalId, token: 't', until: T0 + 1000 })).toMatchObject({ claimed: false });
  });
});

describe('bad requests and failures come back typed, never thrown', () => {
  test.each([
    [null, 'the request'],
    [{ op: 'decide', approval_id: 'a' }, 'op'],
    [{ op: 'claim', approval_id: 'a', token: 't', until: 'soon' }, 'until'],
    [{ op: 'complete', approval_id: 'a' }, 'token'],
  ])('%j is a ToolUsageError naming %s', async (request, named) => {
    expect(await engine(request)).toMatchObject({ ok: false, error: { type: 'ToolUsageError', message: expect.stringContaining(named) } });
  });

  test('a throttled table is a retryable StoreUnavailable', async () => {
    injectFault(client, THROTTLING, { times: 10 });
    expect(await engine(create)).toMatchObject({ ok: false, error: { type: 'StoreUnavailable', retryable: true } });
  });
});

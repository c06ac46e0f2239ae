/**
 * The contract both built-in stores keep: the same cases run against the in-memory
 * store and the DynamoDB store on dynalite.
 */
import { ApprovalNotFound, ToolUsageError } from '../../lambda/errors';
import { callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { MemoryApprovalStore } from '../../lambda/stores/memory';
import type { StoreOptions } from '../../lambda/stores/options';
import type { ApprovalStore, CallStore, CreateApprovalInput } from '../../lambda/stores/types';
import { createTestTable } from '../support/dynamo';

type Store = ApprovalStore & CallStore;

interface Harness {
  readonly name: string;
  make(options: StoreOptions): Promise<Store>;
}

const harnesses: Harness[] = [
  { name: 'MemoryApprovalStore', make: async (options) => new MemoryApprovalStore(options) },
  {
    name: 'DynamoApprovalStore',
    make: async (options) => {
      const { tableName, client } = await createTestTable();
      return new DynamoApprovalStore({ tableName, client, ...options });
    },
  },
];

/** Whole seconds, so that epoch-ms expiry and DynamoDB's epoch-second TTL attribute agree exactly. */
const T0 = 1_700_000_000_000;
const TTL_SECONDS = 3600;
const TTL_MS = TTL_SECONDS * 1000;

/** An approval input whose fingerprint is the hash of its tool and args, as the engine makes it. */
function approval(overrides: Partial<CreateApprovalInput> = {}): CreateApprovalInput {
  const input = {
    approvalId: 'apr_1',
    tool: 'refund',
    args: { orderId: 'o-1', lines: [{ sku: 'a', qty: 2 }], note: 'ünïcødé ✓', empty: null },
    runId: 'run-1',
    callId: 'call-1',
    ...overrides,
  };
  return { ...input, fingerprint: overrides.fingerprint ?? callFingerprint(input.tool, input.args) };
}

const FP_1 = approval().fingerprint;

describe.each(harnesses)('$name', ({ make }) => {
  let time: number;
  let store: Store;

  beforeEach(async () => {
    time = T0;
    store = await make({ ttlSeconds: TTL_SECONDS, now: () => time });
  });

  async function approved(overrides: Partial<CreateApprovalInput> = {}): Promise<string> {
    const input = approval(overrides);
    await store.create(input);
    await store.decide(input.approvalId, { approved: true, by: 'alice' });
    return input.approvalId;
  }

  describe('create', () => {
    test('creates a pending approval owned by handler', async () => {
      const outcome = await store.create(approval());
      expect(outcome).toEqual({
        created: true,
        record: {
          approvalId: 'apr_1',
          tool: 'refund',
          args: approval().args,
          runId: 'run-1',
          callId: 'call-1',
          fingerprint: FP_1,
          owner: 'handler',
          status: 'pending',
          createdAt: T0,
          expiresAt: T0 + TTL_MS,
          hasResult: false,
        },
      });
      expect(await store.get('apr_1')).toEqual(outcome.record);
    });

    test('is idempotent: a second create returns the first approval and its fingerprint', async () => {
      const first = await store.create(approval());
      time += 5000;
      const second = await store.create(approval({ args: { other: true }, fingerprint: 'fp-2', tool: 'other' }));
      expect(second).toEqual({ created: false, record: first.record });
      expect(second.record.fingerprint).toBe(FP_1);
    });

    test('returns the approval as it stands (decided) on a repeated create', async () => {
      await approved();
      const again = await store.create(approval());
      expect(again.created).toBe(false);
      expect(again.record).toMatchObject({ status: 'approved', decidedBy: 'alice' });
    });

    test('refuses to revive an expired approval', async () => {
      await store.create(approval());
      time = T0 + TTL_MS;
      await expect(store.create(approval())).rejects.toThrow(ToolUsageError);
      await expect(store.create(approval())).rejects.toThrow(/expired.*new run_id or call_id/);
    });
  });

  describe('get', () => {
    test('a missing approval is undefined', async () => {
      expect(await store.get('nope')).toBeUndefined();
    });

    test('an expired approval is undefined, a live one is not (boundary)', async () => {
      await store.create(approval());
      time = T0 + TTL_MS - 1;
      expect(await store.get('apr_1')).toBeDefined();
      time = T0 + TTL_MS;
      expect(await store.get('apr_1')).toBeUndefined();
    });
  });

  describe('decide', () => {
    test('on the fingerprint the approver saw: refused once tool or args changed, else decided', async () => {
      await store.create(approval());
      const seen = (await store.get('apr_1'))!.fingerprint;
      expect(seen).toBe(FP_1);
      await expect(store.decide('apr_1', { approved: true, by: 'alice', fingerprint: 'fp-other' })).rejects.toThrow(
        /changed since it was read/,
      );
      expect(await store.get('apr_1')).toMatchObject({ status: 'pending' });
      await expect(store.decide('apr_1', { approved: true, by: 'alice', fingerprint: seen })).resolves.toMatchObject({
        status: 'approved',
        decidedFingerprint: FP_1,
      });
    });

    test('approves once, recording who, when and why', async () => {
      await store.create(approval());
      time += 1000;
      const record = await store.decide('apr_1', { approved: true, by: 'alice', reason: 'looks fine' });
      expect(record).toMatchObject({ status: 'approved', decidedBy: 'alice', decidedAt: T0 + 1000, reason: 'looks fine' });
      expect(await store.get('apr_1')).toEqual(record);
    });

    test('denies without a reason', async () => {
      await store.create(approval());
      const record = await store.decide('apr_1', { approved: false, by: 'bob' });
      expect(record.status).toBe('denied');
      expect(record.reason).toBeUndefined();
    });

    test('a second decision is a ToolUsageError and changes nothing', async () => {
      await store.create(approval());
      const first = await store.decide('apr_1', { approved: false, by: 'bob', reason: 'no' });
      await expect(store.decide('apr_1', { approved: true, by: 'alice' })).rejects.toThrow(ToolUsageError);
      await expect(store.decide('apr_1', { approved: true, by: 'alice' })).rejects.toThrow(/already decided \(denied\)/);
      expect(await store.get('apr_1')).toEqual(first);
    });

    test('a missing approval is ApprovalNotFound', async () => {
      await expect(store.decide('nope', { approved: true, by: 'alice' })).rejects.toThrow(ApprovalNotFound);
      expect(await store.get('nope')).toBeUndefined();
    });

    test('an expired approval cannot be decided (ToolUsageError, conflict expired), and reads as expired', async () => {
      await store.create(approval());
      time = T0 + TTL_MS;
      await expect(store.decide('apr_1', { approved: true, by: 'alice' })).rejects.toMatchObject({
        name: 'ToolUsageError',
        conflict: 'expired',
        message: expect.stringMatching(/expired before it was decided/),
      });
      expect(await store.get('apr_1')).toBeUndefined();
      expect(await store.read('apr_1')).toMatchObject({ status: 'expired' });
    });
  });

  describe('claim', () => {
    test('claims an approved approval, with the claim on the record', async () => {
      await approved();
      const outcome = await store.claim('apr_1', { until: T0 + 30_000 });
      expect(outcome.claimed).toBe(true);
      if (!outcome.claimed) return;
      expect(outcome.token).toEqual(expect.any(String));
      expect(outcome.record).toMatchObject({ status: 'approved', claimedUntil: T0 + 30_000, hasResult: false });
      expect(await store.get('apr_1')).toEqual(outcome.record);
    });

    test('does not claim a missing approval', async () => {
      expect(await store.claim('nope', { until: T0 + 30_000 })).toEqual({ claimed: false, record: undefined });
    });

    test.each([
      ['pending', undefined],
      ['denied', false],
    ])('does not claim a %s approval', async (status, decision) => {
      await store.create(approval());
      if (decision !== undefined) await store.decide('apr_1', { approved: decision, by: 'bob' });
      const outcome = await store.claim('apr_1', { until: T0 + 30_000 });
      expect(outcome).toEqual({ claimed: false, record: await store.get('apr_1') });
      expect(outcome.record?.status).toBe(status);
    });

    test('does not claim one already claimed by a live run', async () => {
      await approved();
      const first = await store.claim('apr_1', { until: T0 + 30_000 });
      expect(first.claimed).toBe(true);
      time += 29_999;
      const second = await store.claim('apr_1', { until: T0 + 60_000 });
      expect(second).toEqual({ claimed: false, record: await store.get('apr_1') });
      expect(second.record?.claimedUntil).toBe(T0 + 30_000);
    });

    test('a caller-chosen token claims its own live claim again (a retry whose answer was lost); another token does not', async () => {
      await approved();
      expect(await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-1' })).toMatchObject({ claimed: true, token: 'tok-1' });
      time += 1000;
      expect(await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-1' })).toMatchObject({ claimed: true, token: 'tok-1' });
      expect((await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-2' })).claimed).toBe(false);
      expect((await store.claim('apr_1', { until: T0 + 30_000 })).claimed).toBe(false);
      await store.complete('apr_1', 'tok-1', 'done');
      expect((await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-1' })).claimed).toBe(false); // finished
    });

    test('taking a claim again with the same token never extends it (handler code cannot hold an approval forever)', async () => {
      await approved();
      expect(await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-1' })).toMatchObject({ claimed: true });
      for (const step of [10_000, 10_000, 9_000]) {
        time += step;
        const again = await store.claim('apr_1', { until: time + 30_000, token: 'tok-1' });
        expect(again).toMatchObject({ claimed: true, token: 'tok-1' });
        expect(again.record?.claimedUntil).toBe(T0 + 30_000);
      }
      time = T0 + 30_000;
      // Lapsed: anyone may claim it now, and the holder has no head start.
      expect(await store.claim('apr_1', { until: time + 30_000, token: 'tok-2' })).toMatchObject({ claimed: true, token: 'tok-2' });
      expect((await store.claim('apr_1', { until: time + 60_000, token: 'tok-1' })).claimed).toBe(false);
    });

    test('claims again once the first claim lapsed', async () => {
      await approved();
      const first = await store.claim('apr_1', { until: T0 + 30_000 });
      time = T0 + 30_000;
      const second = await store.claim('apr_1', { until: T0 + 90_000 });
      expect(second.claimed).toBe(true);
      if (!first.claimed || !second.claimed) return;
      expect(second.token).not.toBe(first.token);
      expect(second.record.claimedUntil).toBe(T0 + 90_000);
    });

    test('claims only tools in allowedTools', async () => {
      await approved();
      expect((await store.claim('apr_1', { until: T0 + 1000, allowedTools: new Set(['add']) })).claimed).toBe(false);
      expect((await store.claim('apr_1', { until: T0 + 1000, allowedTools: new Set() })).claimed).toBe(false);
      const outcome = await store.claim('apr_1', { until: T0 + 1000, allowedTools: new Set(['add', 'refund']) });
      expect(outcome.claimed).toBe(true);
    });

    test('claims only tools in an allowlist of more than 100 names', async () => {
      await approved();
      const many = new Set(Array.from({ length: 150 }, (_, i) => `tool_${i}`));
      const refused = await store.claim('apr_1', { until: T0 + 1000, allowedTools: many });
      expect(refused.claimed).toBe(false);
      expect(refused.record?.claimedUntil).toBeUndefined();
      expect(await store.get('apr_1')).toEqual(refused.record);
      many.add('refund');
      expect((await store.claim('apr_1', { until: T0 + 1000, allowedTools: many })).claimed).toBe(true);
    });

    test('does not claim an expired approval', async () => {
      await approved();
      time = T0 + TTL_MS;
      expect(await store.claim('apr_1', { until: time + 1000 })).toEqual({ claimed: false, record: undefined });
    });

    test('50 concurrent claims: exactly one wins', async () => {
      await approved();
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () => store.claim('apr_1', { until: T0 + 30_000 })),
      );
      expect(outcomes.filter((outcome) => outcome.claimed)).toHaveLength(1);
      for (const outcome of outcomes.filter((o) => !o.claimed)) {
        expect(outcome.record?.claimedUntil).toBe(T0 + 30_000);
      }
    });
  });

  describe('release', () => {
    test('lets another delivery claim', async () => {
      await approved();
      const first = await store.claim('apr_1', { until: T0 + 30_000 });
      if (!first.claimed) throw new Error('expected a claim');
      await store.release('apr_1', first.token);
      expect((await store.get('apr_1'))?.claimedUntil).toBeUndefined();
      expect((await store.claim('apr_1', { until: T0 + 30_000 })).claimed).toBe(true);
    });

    test("with another delivery's token does nothing", async () => {
      await approved();
      const first = await store.claim('apr_1', { until: T0 + 30_000 });
      if (!first.claimed) throw new Error('expected a claim');
      await store.release('apr_1', 'not-the-token');
      expect(await store.get('apr_1')).toEqual(first.record);
      await expect(store.release('nope', 'token')).resolves.toBeUndefined();
      expect(await store.get('nope')).toBeUndefined();
    });
  });

  describe('complete', () => {
    test.each([
      ['an object', { refunded: 'o-1', amounts: [1.5, 2] }],
      ['null', null],
      ['a string', 'done'],
      ['zero', 0],
    ])('keeps the result (%s) and ends the claim', async (_label, result) => {
      await approved();
      const claim = await store.claim('apr_1', { until: T0 + 30_000 });
      if (!claim.claimed) throw new Error('expected a claim');
      time += 2000;
      await store.complete('apr_1', claim.token, result);
      const record = await store.get('apr_1');
      expect(record).toMatchObject({ completedAt: T0 + 2000, hasResult: true, result });
      expect(record?.claimedUntil).toBeUndefined();
    });

    test('a completed approval cannot be claimed again, even after the claim would have lapsed', async () => {
      await approved();
      const claim = await store.claim('apr_1', { until: T0 + 30_000 });
      if (!claim.claimed) throw new Error('expected a claim');
      await store.complete('apr_1', claim.token, { ok: true });
      const again = await store.claim('apr_1', { until: T0 + 30_000 });
      expect(again).toEqual({ claimed: false, record: await store.get('apr_1') });
      time = T0 + 60_000;
      expect((await store.claim('apr_1', { until: T0 + 90_000 })).claimed).toBe(false);
    });

    test("with another delivery's token does nothing", async () => {
      await approved();
      const claim = await store.claim('apr_1', { until: T0 + 30_000 });
      if (!claim.claimed) throw new Error('expected a claim');
      await store.complete('apr_1', 'not-the-token', 'x');
      expect(await store.get('apr_1')).toEqual(claim.record);
      await expect(store.complete('nope', 'token', 'x')).resolves.toBeUndefined();
      expect(await store.get('nope')).toBeUndefined();
    });
  });

  describe('list', () => {
    test('lists live approvals, or only the pending ones', async () => {
      await store.create(approval({ approvalId: 'a' }));
      await store.create(approval({ approvalId: 'b' }));
      await store.create(approval({ approvalId: 'c' }));
      await store.decide('b', { approved: true, by: 'alice' });
      await store.begin({ runId: 'r', callId: 'c' }, { fingerprint: 'f', leaseUntil: T0 + 1000 });
      const ids = (records: { approvalId: string }[]) => records.map((r) => r.approvalId).sort();
      expect(ids(await store.list())).toEqual(['a', 'b', 'c']);
      expect(ids(await store.list({ pending: true }))).toEqual(['a', 'c']);
      expect(await store.list()).toContainEqual(await store.get('b'));
    });

    test('leaves expired approvals out', async () => {
      await store.create(approval({ approvalId: 'old' }));
      time += 10_000;
      await store.create(approval({ approvalId: 'new' }));
      time = T0 + TTL_MS;
      expect((await store.list()).map((r) => r.approvalId)).toEqual(['new']);
      expect((await store.list({ pending: true })).map((r) => r.approvalId)).toEqual(['new']);
    });
  });

  describe('listPage (the approvals API)', () => {
    async function fourStatuses(): Promise<void> {
      await store.create(approval({ approvalId: 'p' }));
      time += 1;
      await store.create(approval({ approvalId: 'a' }));
      await store.decide('a', { approved: true, by: 'alice' });
      time += 1;
      await store.create(approval({ approvalId: 'd' }));
      await store.decide('d', { approved: false, by: 'bob' });
      time += 1;
      await store.create(approval({ approvalId: 'x' }));
      time = T0 + 2 + TTL_MS; // p and a (and d) expire; x is live
    }

    async function all(input: { status?: 'pending' | 'approved' | 'denied' | 'expired'; limit?: number }): Promise<string[]> {
      const ids: string[] = [];
      let next: string | undefined;
      let pages = 0;
      do {
        const page = await store.listPage({ ...input, next });
        expect(page.records.length).toBeLessThanOrEqual(input.limit ?? 50);
        ids.push(...page.records.map((record) => record.approvalId));
        next = page.next;
        expect(++pages).toBeLessThan(20);
      } while (next !== undefined);
      return ids.sort();
    }

    test('filters by status, expired included, and pages through every record exactly once', async () => {
      await fourStatuses();
      expect(await all({})).toEqual(['a', 'd', 'p', 'x']);
      expect(await all({ limit: 1 })).toEqual(['a', 'd', 'p', 'x']);
      expect(await all({ status: 'pending' })).toEqual(['x']);
      expect(await all({ status: 'expired' })).toEqual(['p']);
      expect(await all({ status: 'approved' })).toEqual(['a']);
      expect(await all({ status: 'denied', limit: 2 })).toEqual(['d']);
    });

    test('a made-up next is a ToolUsageError naming next', async () => {
      await expect(store.listPage({ next: 'not-a-position' })).rejects.toThrow(/`next` is not a position this list returned/);
    });
  });

  describe('what the engine relies on', () => {
    test('a claim repeated with its own token wins again (a claim whose answer was lost)', async () => {
      await approved();
      const first = await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-1' });
      expect(first).toMatchObject({ claimed: true, token: 'tok-1' });
      expect(await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-1' })).toMatchObject({ claimed: true, token: 'tok-1' });
      expect(await store.claim('apr_1', { until: T0 + 30_000, token: 'tok-2' })).toMatchObject({ claimed: false });
    });

    test('a pending, a denied and an expired approval are never claimed, not even for a moment', async () => {
      await store.create(approval({ approvalId: 'p' }));
      await store.create(approval({ approvalId: 'd' }));
      await store.decide('d', { approved: false, by: 'bob' });
      for (const id of ['p', 'd']) {
        const outcome = await store.claim(id, { until: T0 + 30_000 });
        expect(outcome.claimed).toBe(false);
        expect(outcome.record?.claimedUntil).toBeUndefined();
        expect((await store.get(id))?.claimedUntil).toBeUndefined();
      }
      await approved({ approvalId: 'late' });
      time = T0 + TTL_MS;
      expect(await store.claim('late', { until: time + 30_000 })).toEqual({ claimed: false, record: undefined });
    });

    test('the decision binds to the hash of the stored tool and args', async () => {
      await store.create(approval());
      const record = await store.decide('apr_1', { approved: true, by: 'alice', fingerprint: FP_1 });
      expect(record.decidedFingerprint).toBe(callFingerprint('refund', approval().args));
    });

    test('a completion is final: a repeat, a release and a later claim change nothing', async () => {
      await approved();
      const claim = await store.claim('apr_1', { until: T0 + 30_000, token: 'tok' });
      expect(claim.claimed).toBe(true);
      await store.complete('apr_1', 'tok', { n: 1 });
      await store.complete('apr_1', 'tok', { n: 2 });
      await store.release('apr_1', 'tok');
      const after = await store.get('apr_1');
      expect(after).toMatchObject({ completedAt: T0, result: { n: 1 }, hasResult: true });
      expect(after?.claimedUntil).toBeUndefined();
      expect(await store.claim('apr_1', { until: T0 + 30_000, token: 'tok' })).toMatchObject({ claimed: false });
    });

    test('conflicts say which: already decided, fingerprint mismatch', async () => {
      await store.create(approval());
      await expect(store.decide('apr_1', { approved: true, by: 'a', fingerprint: 'other' })).rejects.toMatchObject({
        conflict: 'fingerprint_mismatch',
      });
      await store.decide('apr_1', { approved: true, by: 'a' });
      await expect(store.decide('apr_1', { approved: false, by: 'b' })).rejects.toMatchObject({ conflict: 'already_decided' });
    });

  });

  describe('call store', () => {
    const key = { runId: 'run-1', callId: 'call-1' };
    const lease = { fingerprint: 'fp-1', leaseUntil: T0 + 30_000 };
    const reply = { status: 'ok', tool: 'add', run_id: 'run-1', call_id: 'call-1', result: { sum: 3, list: [null, 'x'] } };

    async function started(): Promise<string> {
      const outcome = await store.begin(key, lease);
      if (outcome.state !== 'started') throw new Error(`expected started, got ${outcome.state}`);
      return outcome.token;
    }

    test('a new call starts; a second delivery while it runs is in progress', async () => {
      await started();
      time += 29_999;
      expect(await store.begin(key, lease)).toEqual({ state: 'in_progress' });
    });

    test('a holder whose source delivers it again: every other copy is held until then, not run; then the call is taken over', async () => {
      await store.begin(key, { ...lease, heldUntil: T0 + 90_000 });
      time = T0 + 1;
      expect(await store.begin(key, lease)).toEqual({ state: 'held' }); // while the holder runs
      time = T0 + 30_000;
      expect(await store.begin(key, lease)).toEqual({ state: 'held' }); // after its invocation ended
      time = T0 + 89_999;
      expect(await store.begin(key, { ...lease, leaseUntil: time + 30_000 })).toEqual({ state: 'held' });
      time = T0 + 90_000;
      expect(await store.begin(key, { ...lease, leaseUntil: time + 30_000 })).toMatchObject({ state: 'started' });
    });

    test("a holder without redelivery (a direct invoke): a copy is in progress while it runs, then takes over", async () => {
      await store.begin(key, { ...lease, heldUntil: T0 + 30_000 });
      time = T0 + 29_999;
      expect(await store.begin(key, lease)).toEqual({ state: 'in_progress' });
      time = T0 + 30_000;
      expect(await store.begin(key, { ...lease, leaseUntil: time + 30_000 })).toMatchObject({ state: 'started' });
    });

    test("an SQS holder: other deliveries are held while the call item lives; its own message's redelivery takes over once its invocation ended", async () => {
      const message = 'sqs:arn:aws:sqs:us-east-1:1:q/m-1';
      await store.begin(key, { ...lease, heldBy: message });
      time = T0 + 1;
      // A copy of the holder's own message (SQS may deliver one twice) waits like a retry: never acknowledged as held.
      expect(await store.begin(key, { ...lease, heldBy: message })).toEqual({ state: 'in_progress' });
      expect(await store.begin(key, { ...lease, heldBy: 'sqs:arn:aws:sqs:us-east-1:1:q/m-2' })).toEqual({ state: 'held' });
      time = T0 + TTL_MS - 1; // long after the holder's invocation: still held against other messages and sources
      expect(await store.begin(key, { ...lease, leaseUntil: time + 30_000, heldBy: 'sqs:arn:aws:sqs:us-east-1:1:q/m-3' })).toEqual({ state: 'held' });
      expect(await store.begin(key, { ...lease, leaseUntil: time + 30_000 })).toEqual({ state: 'held' });
      // The holder's own redelivery (a crash) runs it.
      expect(await store.begin(key, { ...lease, leaseUntil: time + 30_000, heldBy: message })).toMatchObject({ state: 'started' });
    });

    test("the holder's own message takes over as soon as its invocation has ended", async () => {
      const message = 'sqs:arn:aws:sqs:us-east-1:1:q/m-1';
      await store.begin(key, { ...lease, heldBy: message });
      time = T0 + 30_000;
      expect(await store.begin(key, { ...lease, leaseUntil: time + 30_000, heldBy: message })).toMatchObject({ state: 'started' });
    });

    test('a held copy never hides a kept reply, nor a mismatch', async () => {
      const token = await started();
      await store.finish(key, token, reply);
      time = T0 + 40_000;
      expect(await store.begin(key, { ...lease, heldUntil: T0 + 90_000 })).toEqual({ state: 'done', reply });
      const other = { runId: 'run-1', callId: 'call-2' };
      await store.begin(other, { ...lease, leaseUntil: time + 1, heldUntil: time + 60_000 });
      time += 2;
      expect(await store.begin(other, { ...lease, fingerprint: 'fp-2' })).toEqual({ state: 'mismatch' });
    });

    test('a finished call gives its kept reply, without starting again', async () => {
      const token = await started();
      await store.finish(key, token, reply);
      expect(await store.begin(key, lease)).toEqual({ state: 'done', reply });
      time = T0 + 60_000;
      expect(await store.begin(key, lease)).toEqual({ state: 'done', reply });
    });

    test('the same ids with another fingerprint are a mismatch (running or done)', async () => {
      const token = await started();
      expect(await store.begin(key, { ...lease, fingerprint: 'fp-2' })).toEqual({ state: 'mismatch' });
      await store.finish(key, token, reply);
      expect(await store.begin(key, { ...lease, fingerprint: 'fp-2' })).toEqual({ state: 'mismatch' });
    });

    test('abandon removes the call so a retry may run it', async () => {
      const token = await started();
      await store.abandon(key, token);
      const retry = await store.begin(key, { ...lease, fingerprint: 'fp-2' });
      expect(retry.state).toBe('started');
    });

    test("abandon and finish with another delivery's token do nothing", async () => {
      await started();
      await store.abandon(key, 'not-the-token');
      await store.finish(key, 'not-the-token', reply);
      expect(await store.begin(key, lease)).toEqual({ state: 'in_progress' });
      await expect(store.abandon({ runId: 'x', callId: 'y' }, 'token')).resolves.toBeUndefined();
      await expect(store.finish({ runId: 'x', callId: 'y' }, 'token', reply)).resolves.toBeUndefined();
      expect((await store.begin({ runId: 'x', callId: 'y' }, lease)).state).toBe('started');
    });

    test('a lapsed lease is taken over; the late first run can then neither finish nor abandon', async () => {
      const first = await started();
      time = T0 + 30_000;
      const second = await store.begin(key, { ...lease, leaseUntil: T0 + 90_000 });
      expect(second.state).toBe('started');
      if (second.state !== 'started') return;
      expect(second.token).not.toBe(first);
      await store.finish(key, first, { late: true });
      await store.abandon(key, first);
      expect(await store.begin(key, lease)).toEqual({ state: 'in_progress' });
      await store.finish(key, second.token, reply);
      expect(await store.begin(key, lease)).toEqual({ state: 'done', reply });
    });

    test('an expired call is taken over, even with another fingerprint', async () => {
      const token = await started();
      await store.finish(key, token, reply);
      time = T0 + TTL_MS;
      const again = await store.begin(key, { fingerprint: 'fp-2', leaseUntil: time + 30_000 });
      expect(again.state).toBe('started');
      expect(await store.begin(key, { fingerprint: 'fp-2', leaseUntil: time + 30_000 })).toEqual({ state: 'in_progress' });
    });

    test('an expired running call is taken over', async () => {
      await started();
      time = T0 + TTL_MS;
      expect((await store.begin(key, { ...lease, leaseUntil: time + 30_000 })).state).toBe('started');
    });

    test('finish keeps the reply for a full TTL from the finish', async () => {
      const token = await started();
      time = T0 + TTL_MS - 10_000;
      await store.finish(key, token, reply);
      time = T0 + TTL_MS + 10_000;
      expect(await store.begin(key, lease)).toEqual({ state: 'done', reply });
    });

    test('ids that contain separators never collide', async () => {
      const a = await store.begin({ runId: 'a#b', callId: 'c' }, lease);
      const b = await store.begin({ runId: 'a', callId: 'b#c' }, lease);
      const c = await store.begin({ runId: 'a","b', callId: 'c' }, lease);
      expect([a.state, b.state, c.state]).toEqual(['started', 'started', 'started']);
    });

    test('50 concurrent first deliveries: exactly one starts', async () => {
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.begin(key, lease)));
      expect(outcomes.filter((o) => o.state === 'started')).toHaveLength(1);
      expect(outcomes.filter((o) => o.state === 'in_progress')).toHaveLength(49);
    });

    test('50 concurrent takeovers of a lapsed lease: exactly one starts', async () => {
      await started();
      time = T0 + 30_000;
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, () => store.begin(key, { ...lease, leaseUntil: T0 + 90_000 })),
      );
      expect(outcomes.filter((o) => o.state === 'started')).toHaveLength(1);
    });
  });
});

/**
 * What an expiry run finds (the expirer's figures), the same on both stores: the
 * approvals it marks, how many of the owner's stay pending and when the oldest of them was made;
 * decided approvals and other owners' never count.
 */
import { callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { MemoryApprovalStore } from '../../lambda/stores/memory';
import type { StoreOptions } from '../../lambda/stores/options';
import type { ApprovalStore } from '../../lambda/stores/types';
import { createTestTable } from '../support/dynamo';

const T0 = 1_700_000_000_000;
const TTL_SECONDS = 600;

const harnesses = [
  { name: 'MemoryApprovalStore', make: async (options: StoreOptions[]) => options.map((o) => new MemoryApprovalStore(o)) },
  {
    name: 'DynamoApprovalStore',
    make: async (options: StoreOptions[]) => {
      const { tableName, client } = await createTestTable();
      return options.map((o) => new DynamoApprovalStore({ tableName, client, ...o }));
    },
  },
];

describe.each(harnesses)('$name', ({ make }) => {
  let time: number;
  let mine: ApprovalStore;
  let theirs: ApprovalStore;
  const create = (store: ApprovalStore, id: string) =>
    store.create({ approvalId: id, tool: 'refund', args: { id }, runId: 'r', callId: id, fingerprint: callFingerprint('refund', { id }) });

  beforeEach(async () => {
    time = T0;
    const options = (owner: string): StoreOptions => ({ ttlSeconds: TTL_SECONDS, now: () => time, owner });
    [mine, theirs] = (await make([options('mine'), options('theirs')])) as ApprovalStore[];
  });

  test('nothing pending: no oldest, nothing expired', async () => {
    expect(await mine.expireDue()).toEqual({ at: T0, expired: [], retried: [], pending: 0 });
  });

  test('counts the pending ones and finds the oldest; marks the due ones, which no longer count', async () => {
    await create(mine, 'a'); // T0: due at T0 + 600 s
    time = T0 + 100_000;
    await create(mine, 'b');
    time = T0 + 200_000;
    await create(mine, 'c');
    await create(mine, 'decided');
    await mine.decide('decided', { approved: true, by: 'alice' });
    await create(theirs, 'other'); // another owner's, older than all but a
    time = T0 + 300_000;
    const first = await mine.expireDue();
    expect(first).toEqual({ at: T0 + 300_000, expired: [], retried: [], pending: 3, oldestPendingCreatedAt: T0 });

    time = T0 + TTL_SECONDS * 1000 + 50_000; // a is due, b and c are not
    const second = await mine.expireDue();
    expect(second.expired.map((r) => r.approvalId)).toEqual(['a']);
    expect(second).toMatchObject({ pending: 2, oldestPendingCreatedAt: T0 + 100_000 });

    time = T0 + 10 * TTL_SECONDS * 1000;
    const last = await mine.expireDue();
    expect(last.expired.map((r) => r.approvalId).sort()).toEqual(['b', 'c']);
    expect(last).toMatchObject({ pending: 0 });
    expect(last.oldestPendingCreatedAt).toBeUndefined();
    expect((await theirs.expireDue()).expired.map((r) => r.approvalId)).toEqual(['other']);
  });
});

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { approvalsApi } from '../../lambda/approvals/api';
import { approvalsExpirer } from '../../lambda/approvals/expirer';
import { callFingerprint } from '../../lambda/ids';
import { EventBridgeReplyPublisher, parseEnvelope, tool, ToolExecutor } from '../../lambda';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { captureLogs } from '../support/events';
import { startEventBridgeEndpoint, type EventBridgeEndpoint } from '../support/eventbridge-endpoint';
import { functionUrlEvent } from '../support/function-url-event';

/** Expiry end to end on dynalite: a short TTL, the expirer, a reply bus on a local endpoint. */

const T0 = Date.UTC(2030, 0, 1);
let time: number;
let store: DynamoApprovalStore;
let bus: EventBridgeEndpoint;
let rawGet: (pk: string) => Promise<Record<string, unknown> | undefined>;
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  bus = await startEventBridgeEndpoint();
});
afterAll(() => bus.close());

beforeEach(async () => {
  time = T0;
  bus.received.length = 0;
  table = await createTestTable();
  store = new DynamoApprovalStore({ tableName: table.tableName, client: table.client, now: () => time, ttlSeconds: 60 });
  rawGet = async (pk) => (await table.client.send(new GetCommand({ TableName: table.tableName, Key: { pk } }))).Item;
});

const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: ({ orderId }) => orderId });

test('an undecided approval past its TTL is marked expired once, announced, and can no longer be decided or resumed', async () => {
  const executor = new ToolExecutor({ tools: [refund], approvals: store, calls: false });
  const options = { source: 't', deadline: T0 + 10_000, invocationEnd: T0 + 10_000 };
  const logs = captureLogs();
  try {
    await expiresOnce(executor, options);
  } finally {
    logs.restore();
  }
  // Its audit record, once: the expiry, with the call's ids and never its args.
  const expiries = logs.lines().filter((l) => l.message === 'approval expired');
  expect(expiries).toHaveLength(1);
  expect(expiries[0]).toMatchObject({ record: 'audit', event: 'expiry', outcome: 'expired', run_id: 'r', 'gen_ai.tool.call.id': 'c' });
  expect(JSON.stringify(logs.lines())).not.toContain('"o1"');
});

async function expiresOnce(executor: ToolExecutor, options: { source: string; deadline: number; invocationEnd: number }): Promise<void> {
  const pending = (await executor.execute(parseEnvelope({ tool: 'refund', args: { orderId: 'o1' }, run_id: 'r', call_id: 'c' }), options)) as any;
  expect(pending).toMatchObject({ status: 'pending_approval', expires_at: new Date(T0 + 60_000).toISOString() });
  const expirer = approvalsExpirer({ store, bus: new EventBridgeReplyPublisher({ busName: 'replies', client: bus.client() }) });

  expect(await expirer()).toEqual({ expired: [], retried: [], unannounced: [] }); // not yet
  time = T0 + 60_000;
  expect(await expirer()).toEqual({ expired: [pending.approval_id], retried: [], unannounced: [] });
  expect(await expirer()).toEqual({ expired: [], retried: [], unannounced: [] }); // once
  expect(bus.received).toEqual([
    {
      EventBusName: 'replies',
      Source: 'cdk-tool-handler.handler',
      DetailType: 'Tool Approval Expired',
      Detail: JSON.stringify({
        approval_id: pending.approval_id,
        tool: 'refund',
        run_id: 'r',
        call_id: 'c',
        expires_at: new Date(T0 + 60_000).toISOString(),
        owner: 'handler',
      }),
    },
  ]);

  const record = await store.read(pending.approval_id);
  expect(record).toMatchObject({ status: 'expired', expiredAt: T0 + 60_000 });
  const api = approvalsApi({ store });
  const post = await api(
    functionUrlEvent('POST', `/approvals/${pending.approval_id}/decision`, { body: { approved: true, fingerprint: callFingerprint('refund', { orderId: 'o1' }) } }),
  );
  expect(post.statusCode).toBe(409);
  expect(JSON.parse(post.body!)).toMatchObject({ error: { type: 'expired' } });
  await expect(executor.execute(parseEnvelope({ approval_id: pending.approval_id }), { ...options, deadline: time + 10_000, invocationEnd: time + 10_000 })).rejects.toMatchObject({
    name: 'ApprovalNotFound',
  });
  // DynamoDB's TTL may delete it a day after its expiry, not before: it stays readable until then.
  const item = await rawGet(`approval#handler#${pending.approval_id}`);
  expect(item).toMatchObject({ expiresAt: (T0 + 60_000) / 1000, deleteAt: (T0 + 60_000 + 86_400_000) / 1000 });
}

test('decided approvals and approvals of another owner are never marked', async () => {
  const args = { orderId: 'o' };
  const base = { tool: 'refund', args, runId: 'r', fingerprint: callFingerprint('refund', args) };
  await store.create({ ...base, approvalId: 'decided', callId: 'c1' });
  await store.decide('decided', { approved: true, by: 'a' });
  const theirs = new DynamoApprovalStore({ tableName: table.tableName, client: table.client, now: () => time, ttlSeconds: 60, owner: 'other' });
  await theirs.create({ ...base, approvalId: 'theirs', callId: 'c2' });
  time = T0 + 120_000;
  expect(await approvalsExpirer({ store })()).toEqual({ expired: [], retried: [], unannounced: [] });
  expect(await store.read('decided')).toMatchObject({ status: 'approved' });
  expect(await theirs.read('theirs')).toMatchObject({ status: 'expired' });
  expect((await theirs.read('theirs'))?.expiredAt).toBeUndefined();
});

test('a bus that fails: the approval is still marked, the miss is reported and logged, and the next run tells it again', async () => {
  await store.create({ approvalId: 'a', tool: 'refund', args: {}, runId: 'r', callId: 'c', fingerprint: callFingerprint('refund', {}) });
  time = T0 + 60_000;
  let down = true;
  const published: unknown[] = [];
  const flaky = { publishEvent: async (event: unknown) => (down ? Promise.reject(new Error('bus down')) : void published.push(event)) };
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(...String(chunk).split('\n').filter(Boolean)), true));
  const expirer = approvalsExpirer({ store, bus: flaky, metrics: { owner: 'handler', namespace: 'Test' } });
  try {
    expect(await expirer()).toEqual({ expired: ['a'], retried: [], unannounced: ['a'] });
    expect(await store.read('a')).toMatchObject({ status: 'expired', expiredAt: T0 + 60_000 });
    // Still expired for everyone else: deciding it is refused, and it is in no pending list.
    expect((await store.listPage({ status: 'pending' })).records).toEqual([]);
    await expect(store.decide('a', { approved: true, by: 'x' })).rejects.toThrow(/expired/);
    down = false;
    time += 300_000;
    expect(await expirer()).toEqual({ expired: [], retried: ['a'], unannounced: [] });
    expect(await expirer()).toEqual({ expired: [], retried: [], unannounced: [] }); // told: done
  } finally {
    write.mockRestore();
  }
  expect(published).toHaveLength(1);
  // The time it expired is kept; its audit record and its count are written once.
  expect(await store.read('a')).toMatchObject({ status: 'expired', expiredAt: T0 + 60_000 });
  const records = lines.filter((line) => line.includes('"record":"audit"'));
  expect(records).toHaveLength(1);
  const counts = lines.map((line) => JSON.parse(line)).filter((line) => line.ApprovalsExpired !== undefined).map((line) => line.ApprovalsExpired);
  expect(counts).toEqual([1, 0, 0]);
});

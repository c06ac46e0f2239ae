/**
 * What only the DynamoDB store has: round trips, store faults, item limits, the item layout and the
 * decision attributes that the handler never writes. Against dynalite, never mocks.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AdapterError, ToolUsageError } from '../../lambda/errors';
import { callFingerprint } from '../../lambda/ids';
import { APPROVAL_ATTRIBUTES, DECISION_ATTRIBUTES, TABLE } from '../../lambda/construct-contract';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { resolveRegion } from '../../lambda/config';
import { resetSharedDocumentClient, sharedDocumentClient } from '../../lambda/stores/dynamo-table';
import { MAX_DECISION_TEXT_BYTES, MAX_ITEM_BYTES } from '../../lambda/stores/dynamo-items';
import type { CreateApprovalInput } from '../../lambda/stores/types';
import { createTestTable, dynaliteEndpoint, testDocumentClient } from '../support/dynamo';
import { startDynalite } from '../support/dynalite-server';
import {
  injectFault,
  INTERNAL_SERVER_ERROR,
  recordRequests,
  type RequestRecorder,
  type SentCommand,
  SERVICE_UNAVAILABLE,
  THROTTLING,
} from '../support/sdk-middleware';

const T0 = 1_700_000_000_000;
const TTL_SECONDS = 3600;
const key = { runId: 'run-1', callId: 'call-1' };
const lease = { fingerprint: 'fp-1', leaseUntil: T0 + 30_000 };

function approval(overrides: Partial<CreateApprovalInput> = {}): CreateApprovalInput {
  const input = { approvalId: 'apr_1', tool: 'refund', args: { orderId: 'o-1' }, runId: 'run-1', callId: 'call-1', ...overrides };
  return { ...input, fingerprint: overrides.fingerprint ?? callFingerprint(input.tool, input.args) };
}

let time: number;
let tableName: string;
let client: DynamoDBDocumentClient;
let store: DynamoApprovalStore;
let requests: RequestRecorder;

beforeEach(async () => {
  time = T0;
  ({ tableName, client } = await createTestTable());
  store = new DynamoApprovalStore({ tableName, client, ttlSeconds: TTL_SECONDS, now: () => time });
  requests = recordRequests(client);
});

async function rawItem(pk: string): Promise<Record<string, unknown> | undefined> {
  const output = await client.send(
    new GetCommand({ TableName: tableName, Key: { [TABLE.partitionKey]: pk }, ConsistentRead: true }),
  );
  return output.Item;
}

async function approvedAndClaimed(overrides: Partial<CreateApprovalInput> = {}): Promise<string> {
  const input = approval(overrides);
  await store.create(input);
  await store.decide(input.approvalId, { approved: true, by: 'alice' });
  const claim = await store.claim(input.approvalId, { until: T0 + 30_000 });
  if (!claim.claimed) throw new Error('expected a claim');
  return claim.token;
}

/** Round trips (HTTP requests) that `run` takes. */
async function roundTrips(run: () => Promise<unknown>): Promise<number> {
  requests.reset();
  await run();
  return requests.attempts;
}

describe('round trips', () => {
  test('a plain call: begin + finish = 2; a repeated delivery of the finished call = 1', async () => {
    let token = '';
    const call = await roundTrips(async () => {
      const begun = await store.begin(key, lease);
      if (begun.state !== 'started') throw new Error('expected started');
      token = begun.token;
      await store.finish(key, token, { status: 'ok', result: 3 });
    });
    expect(call).toBe(2);
    expect(await roundTrips(async () => expect(await store.begin(key, lease)).toMatchObject({ state: 'done' }))).toBe(1);
  });

  test('a delivery while the call runs = 1; a mismatch = 1; a failed run: begin + abandon = 2', async () => {
    const begun = await store.begin(key, lease);
    expect(await roundTrips(() => store.begin(key, lease))).toBe(1);
    expect(await roundTrips(() => store.begin(key, { ...lease, fingerprint: 'other' }))).toBe(1);
    if (begun.state !== 'started') throw new Error('expected started');
    expect(await roundTrips(() => store.abandon(key, begun.token))).toBe(1);
  });

  test('taking over a lapsed lease = 2', async () => {
    await store.begin(key, lease);
    time = T0 + 30_000;
    expect(await roundTrips(() => store.begin(key, { ...lease, leaseUntil: T0 + 90_000 }))).toBe(2);
  });

  test('a resume: claim + complete = 2; a refused claim = 2', async () => {
    await store.create(approval());
    await store.decide('apr_1', { approved: true, by: 'alice' });
    let token = '';
    const resume = await roundTrips(async () => {
      const claim = await store.claim('apr_1', { until: T0 + 30_000, allowedTools: new Set(['refund']) });
      if (!claim.claimed) throw new Error('expected a claim');
      token = claim.token;
      await store.complete('apr_1', token, { refunded: 'o-1' });
    });
    expect(resume).toBe(2);
    expect(await roundTrips(() => store.claim('apr_1', { until: T0 + 30_000 }))).toBe(2);
  });

  test('a resume before the decision or after a denial: one refused claim + its read = 2, and no claim is ever written', async () => {
    await store.create(approval());
    expect(await roundTrips(() => store.claim('apr_1', { until: T0 + 30_000 }))).toBe(2);
    expect((await rawItem('approval#handler#apr_1'))?.claimedUntil).toBeUndefined();
    await store.decide('apr_1', { approved: false, by: 'bob' });
    const denied = await store.claim('apr_1', { until: T0 + 30_000 });
    expect(denied).toMatchObject({ claimed: false, record: { status: 'denied' } });
    expect((await rawItem('approval#handler#apr_1'))?.claimedUntil).toBeUndefined();
  });

  test('create (new or existing), get and release = 1 each; decide (read, then write) = 2', async () => {
    expect(await roundTrips(() => store.create(approval()))).toBe(1);
    expect(await roundTrips(() => store.create(approval()))).toBe(1);
    expect(await roundTrips(() => store.get('apr_1'))).toBe(1);
    expect(await roundTrips(() => store.decide('apr_1', { approved: true, by: 'alice' }))).toBe(2);
    const claim = await store.claim('apr_1', { until: T0 + 30_000 });
    if (!claim.claimed) throw new Error('expected a claim');
    expect(await roundTrips(() => store.release('apr_1', claim.token))).toBe(1);
  });
});

describe('store failures become StoreUnavailable (retryable)', () => {
  const operations: [string, (s: DynamoApprovalStore) => Promise<unknown>][] = [
    ['create', (s) => s.create(approval())],
    ['get', (s) => s.get('apr_1')],
    ['decide', (s) => s.decide('apr_1', { approved: true, by: 'alice' })],
    ['claim', (s) => s.claim('apr_1', { until: T0 + 30_000 })],
    ['release', (s) => s.release('apr_1', 'token')],
    ['complete', (s) => s.complete('apr_1', 'token', { ok: true })],
    ['list', (s) => s.list({ pending: true })],
    ['begin', (s) => s.begin(key, lease)],
    ['finish', (s) => s.finish(key, 'token', { ok: true })],
    ['abandon', (s) => s.abandon(key, 'token')],
  ];
  const faults = [
    ['ThrottlingException', THROTTLING],
    ['InternalServerError', INTERNAL_SERVER_ERROR],
    ['ServiceUnavailableException', SERVICE_UNAVAILABLE],
  ] as const;
  const cases = operations.flatMap(([operation, run]) =>
    faults.map(([errorName, fault]) => [operation, errorName, fault, run] as const),
  );

  test.each(cases)('%s, answered with %s', async (operation, errorName, fault, run) => {
    await store.create(approval());
    injectFault(client, fault);
    const error = await run(store).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AdapterError);
    expect(error).toMatchObject({ name: 'StoreUnavailable', retryable: true });
    expect((error as Error).message).toContain(`during ${operation}`);
    expect(((error as Error).cause as Error).name).toBe(errorName);
  });

  test('a fault on the read after a refused claim', async () => {
    await store.create(approval());
    injectFault(client, THROTTLING, { nth: 2 });
    await expect(store.claim('apr_1', { until: T0 + 30_000 })).rejects.toMatchObject({ retryable: true });
  });

  test('a fault on the takeover of a lapsed lease', async () => {
    await store.begin(key, lease);
    time = T0 + 30_000;
    injectFault(client, SERVICE_UNAVAILABLE, { nth: 2 });
    await expect(store.begin(key, { ...lease, leaseUntil: T0 + 90_000 })).rejects.toMatchObject({ retryable: true });
    expect((await store.begin(key, { ...lease, leaseUntil: T0 + 90_000 })).state).toBe('started');
  });

  test('after a failed claim, the retry claims it once', async () => {
    await store.create(approval());
    await store.decide('apr_1', { approved: true, by: 'alice' });
    injectFault(client, THROTTLING);
    await expect(store.claim('apr_1', { until: T0 + 30_000 })).rejects.toThrow(AdapterError);
    expect((await store.claim('apr_1', { until: T0 + 30_000 })).claimed).toBe(true);
    expect((await store.claim('apr_1', { until: T0 + 30_000 })).claimed).toBe(false);
  });

  test("a client with retries absorbs one throttle (the SDK's own retry)", async () => {
    const retrying = await createTestTable({ maxAttempts: 2 });
    const retryingStore = new DynamoApprovalStore({ tableName: retrying.tableName, client: retrying.client });
    const recorder = recordRequests(retrying.client);
    injectFault(retrying.client, THROTTLING);
    await expect(retryingStore.create(approval())).resolves.toMatchObject({ created: true });
    expect(recorder.attempts).toBe(2);
  });

  test('a stopped DynamoDB endpoint', async () => {
    const privateDynalite = await startDynalite();
    const stopped = await createTestTable({ endpoint: privateDynalite.endpoint, timeoutMs: 1000 });
    const stoppedStore = new DynamoApprovalStore({ tableName: stopped.tableName, client: stopped.client });
    await stoppedStore.create(approval());
    await privateDynalite.stop();
    const started = Date.now();
    for (const run of [
      () => stoppedStore.get('apr_1'),
      () => stoppedStore.claim('apr_1', { until: Date.now() + 1000 }),
      () => stoppedStore.begin(key, lease),
    ]) {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e as AdapterError,
      );
      expect(error).toMatchObject({ name: 'StoreUnavailable', retryable: true });
      expect((error as Error).message).toMatch(/ECONNREFUSED|socket hang up|TimeoutError/);
    }
    expect(Date.now() - started).toBeLessThan(5000);
    stopped.client.destroy();
  });
});

test('a DynamoDB endpoint that never answers: the request times out as a StoreUnavailable (retryable)', async () => {
  const silent = createServer(() => undefined); // accepts, never responds
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    const hanging = new DynamoApprovalStore({
      tableName: 'never-answers',
      client: testDocumentClient({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 300 }),
    });
    await expect(hanging.begin(key, lease)).rejects.toMatchObject({ name: 'StoreUnavailable', retryable: true });
  } finally {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
});

describe('item limits', () => {
  // The runtime's warning lines: one JSON line each on stdout.
  let warn: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => warn.mockRestore());

  test('args too large for an approval item are a ToolUsageError, before any request', async () => {
    const create = store.create(approval({ args: { blob: 'x'.repeat(MAX_ITEM_BYTES) } }));
    await expect(create).rejects.toThrow(ToolUsageError);
    await expect(create).rejects.toThrow(/args are too large for an approval item.*409600 bytes/);
    expect(requests.attempts).toBe(0);
    expect(await store.get('apr_1')).toBeUndefined();
  });

  test('the largest args leave room for a decision, a claim and a small result', async () => {
    const args = { blob: 'x'.repeat(395_000) };
    await store.create(approval({ args }));
    const reason = 'r'.repeat(MAX_DECISION_TEXT_BYTES - 5);
    await store.decide('apr_1', { approved: true, by: 'alice', reason });
    const claim = await store.claim('apr_1', { until: T0 + 30_000 });
    if (!claim.claimed) throw new Error('expected a claim');
    await store.complete('apr_1', claim.token, { small: 'y'.repeat(4000) });
    const record = await store.get('apr_1');
    expect(record).toMatchObject({ args, reason, hasResult: true, status: 'approved' });
    expect(warn).not.toHaveBeenCalled();
  });

  test('a decision text over its limit is a ToolUsageError', async () => {
    await store.create(approval());
    await expect(
      store.decide('apr_1', { approved: false, by: 'bob', reason: 'r'.repeat(MAX_DECISION_TEXT_BYTES) }),
    ).rejects.toThrow(/by and reason may take 8192 bytes/);
    expect((await store.get('apr_1'))?.status).toBe('pending');
  });

  test('a result larger than an item: completed without it, one warning line, no extra request', async () => {
    const token = await approvedAndClaimed();
    const secret = 'secret-value-';
    const trips = await roundTrips(() => store.complete('apr_1', token, { data: secret + 'z'.repeat(MAX_ITEM_BYTES) }));
    expect(trips).toBe(1);
    const record = await store.get('apr_1');
    expect(record).toMatchObject({ completedAt: T0, hasResult: false });
    expect(record).not.toHaveProperty('result');
    expect(record?.claimedUntil).toBeUndefined();
    expect((await store.claim('apr_1', { until: T0 + 60_000 })).claimed).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    const line = String(warn.mock.calls[0][0]);
    expect(line).not.toContain(secret);
    expect(JSON.parse(line)).toMatchObject({ level: 'WARN', approval_id: 'apr_1', message: expect.stringMatching(/too large/) });
  });

  test('a result that fits alone but not beside large args: DynamoDB refuses it, completed without it', async () => {
    const token = await approvedAndClaimed({ args: { blob: 'x'.repeat(300_000) } });
    const trips = await roundTrips(() => store.complete('apr_1', token, { data: 'z'.repeat(150_000) }));
    expect(trips).toBe(2);
    expect(await store.get('apr_1')).toMatchObject({ completedAt: T0, hasResult: false });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  test('a reply too large to keep is kept without its result', async () => {
    const begun = await store.begin(key, lease);
    if (begun.state !== 'started') throw new Error('expected started');
    const reply = { status: 'ok', tool: 'add', run_id: 'run-1', call_id: 'call-1', result: 'z'.repeat(MAX_ITEM_BYTES) };
    await store.finish(key, begun.token, reply);
    expect(await store.begin(key, lease)).toEqual({
      state: 'done',
      reply: { status: 'ok', tool: 'add', run_id: 'run-1', call_id: 'call-1', result_omitted: expect.stringMatching(/too large/) },
    });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  test('a reply that fits is kept whole', async () => {
    const begun = await store.begin(key, lease);
    if (begun.state !== 'started') throw new Error('expected started');
    const reply = { status: 'ok', result: 'z'.repeat(300_000) };
    await store.finish(key, begun.token, reply);
    expect(await store.begin(key, lease)).toEqual({ state: 'done', reply });
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('item layout', () => {
  test('approval and call items: keys, kind, JSON strings and the TTL in epoch seconds', async () => {
    await store.create(approval({ args: { n: 1 } }));
    await store.begin({ runId: 'r#1', callId: 'c"1' }, lease);
    expect(await rawItem('approval#handler#apr_1')).toMatchObject({
      pk: 'approval#handler#apr_1',
      kind: 'approval',
      args: '{"n":1}',
      owner: 'handler',
      expiresAt: (T0 + TTL_SECONDS * 1000) / 1000,
    });
    expect(await rawItem('call#handler#["r#1","c\\"1"]')).toMatchObject({
      kind: 'call',
      state: 'running',
      fingerprint: 'fp-1',
      leaseUntil: T0 + 30_000,
      expiresAt: (T0 + TTL_SECONDS * 1000) / 1000,
    });
  });

  test('the TTL attribute is a whole number of seconds', async () => {
    time = T0 + 1;
    await store.create(approval());
    expect(Number.isInteger((await rawItem('approval#handler#apr_1'))?.expiresAt)).toBe(true);
  });
});

describe('listing approvals', () => {
  test("queries the owner's partition of a per-owner index, never scans (the table with its call items, or an index)", async () => {
    await store.create(approval());
    const begun = await store.begin(key, lease);
    if (begun.state !== 'started') throw new Error('expected started');
    await store.finish(key, begun.token, { status: 'ok', result: 'secret' });
    requests.reset();
    expect((await store.list()).map((record) => record.approvalId)).toEqual(['apr_1']);
    expect((await store.list({ pending: true })).map((record) => record.approvalId)).toEqual(['apr_1']);
    await store.expireDue();
    expect(requests.sent.filter((sent) => sent.command === 'ScanCommand')).toEqual([]);
    const queries = requests.sent.filter((sent) => sent.command === 'QueryCommand');
    expect(new Set(queries.map((query) => query.input.IndexName))).toEqual(new Set([TABLE.ownerIndex, TABLE.pendingIndex]));
    for (const query of queries) expect(query.input.ExpressionAttributeValues).toMatchObject({ ':v0': 'handler' });
  });
});

describe('decision attributes', () => {
  const decisionNames: string[] = Object.values(DECISION_ATTRIBUTES);

  /** Attribute names an UpdateItem writes (every `#name` in its UpdateExpression). */
  function written(sent: SentCommand): string[] {
    const input = sent.input as { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> };
    const placeholders = input.UpdateExpression?.match(/#\w+/g) ?? [];
    return placeholders.map((p) => input.ExpressionAttributeNames?.[p] ?? p);
  }

  test('no engine or call operation writes them; only decide does', async () => {
    jest.spyOn(process.stdout, 'write').mockImplementationOnce(() => true); // the too-large result below
    await store.create(approval());
    await store.create(approval());
    const claimPending = await store.claim('apr_1', { until: T0 + 30_000 });
    expect(claimPending.claimed).toBe(false);
    const handlerWrites = requests.sent.filter((s) => s.command === 'UpdateItemCommand');
    expect(Object.keys((await rawItem('approval#handler#apr_1')) ?? {})).not.toEqual(expect.arrayContaining(['decision']));

    requests.reset();
    await store.decide('apr_1', { approved: true, by: 'alice', reason: 'ok' });
    const decideWrites = requests.sent.filter((s) => s.command === 'UpdateItemCommand').flatMap(written);
    // And it takes the approval out of the pending index.
    expect(decideWrites.sort()).toEqual([...decisionNames, APPROVAL_ATTRIBUTES.pendingOwner].sort());

    requests.reset();
    const claim = await store.claim('apr_1', { until: T0 + 30_000 });
    if (!claim.claimed) throw new Error('expected a claim');
    await store.release('apr_1', claim.token);
    const again = await store.claim('apr_1', { until: T0 + 30_000 });
    if (!again.claimed) throw new Error('expected a claim');
    await store.complete('apr_1', again.token, 'x'.repeat(MAX_ITEM_BYTES)); // the too-large path too
    await store.complete('apr_1', again.token, { ok: true });
    const begun = await store.begin(key, lease);
    if (begun.state !== 'started') throw new Error('expected started');
    await store.finish(key, begun.token, { ok: true });
    await store.begin({ runId: 'r', callId: 'c' }, lease);
    time = T0 + 30_000;
    await store.begin({ runId: 'r', callId: 'c' }, { ...lease, leaseUntil: T0 + 60_000 });
    handlerWrites.push(...requests.sent.filter((s) => s.command === 'UpdateItemCommand'));

    expect(handlerWrites.length).toBeGreaterThanOrEqual(10);
    for (const sent of handlerWrites) {
      expect(written(sent).filter((name) => decisionNames.includes(name))).toEqual([]);
    }
    const item = await rawItem('approval#handler#apr_1');
    expect(item).toMatchObject({ decision: 'approved', decidedBy: 'alice', decidedAt: T0, reason: 'ok' });
  });

  test("the engine's claim tests the decision in its one conditional write; call operations never name a decision attribute", async () => {
    await store.create(approval());
    await store.decide('apr_1', { approved: true, by: 'alice', reason: 'ok' });
    requests.reset();
    const claim = await store.claim('apr_1', { until: T0 + 30_000, allowedTools: new Set(['refund']) });
    if (!claim.claimed) throw new Error('expected a claim');
    expect(requests.sent).toHaveLength(1);
    const [sent] = requests.sent;
    const names = sent.input.ExpressionAttributeNames as Record<string, string>;
    const condition = String(sent.input.ConditionExpression).replace(/#\w+/g, (p) => names[p]);
    expect(condition).toMatch(/\bdecision = :v\d+/);
    expect(condition).toMatch(/\bdecidedFingerprint = fingerprint\b/);
    expect(written(sent).sort()).toEqual(['claimToken', 'claimedUntil']);

    requests.reset();
    const begun = await store.begin(key, lease);
    if (begun.state !== 'started') throw new Error('expected started');
    await store.finish(key, begun.token, { ok: true });
    const other = await store.begin({ runId: 'r', callId: 'c' }, lease);
    if (other.state !== 'started') throw new Error('expected started');
    await store.abandon({ runId: 'r', callId: 'c' }, other.token);
    expect(new Set(requests.sent.map((s) => s.command))).toEqual(new Set(['UpdateItemCommand', 'DeleteItemCommand']));
    for (const call of requests.sent) {
      const named = Object.values((call.input.ExpressionAttributeNames as Record<string, string> | undefined) ?? {});
      expect(named.filter((name) => decisionNames.includes(name))).toEqual([]);
    }
  });

  test('a raw approval item has none until decide', async () => {
    const token = await (async () => {
      await store.create(approval());
      expect(Object.keys((await rawItem('approval#handler#apr_1')) ?? {}).filter((k) => decisionNames.includes(k))).toEqual([]);
      await store.decide('apr_1', { approved: true, by: 'alice' });
      const claim = await store.claim('apr_1', { until: T0 + 30_000 });
      if (!claim.claimed) throw new Error('expected a claim');
      return claim.token;
    })();
    await store.complete('apr_1', token, 1);
    const keys = Object.keys((await rawItem('approval#handler#apr_1')) ?? {});
    expect(keys.filter((k) => decisionNames.includes(k)).sort()).toEqual(['decidedAt', 'decidedBy', 'decidedFingerprint', 'decision']);
  });
});

describe('the default client', () => {
  const saved = { ...process.env };
  afterEach(() => {
    resetSharedDocumentClient();
    for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  test.each([
    [{ AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-west-2' }, 'eu-west-1'],
    [{ AWS_DEFAULT_REGION: 'us-west-2' }, 'us-west-2'],
    [{ AWS_REGION: '' }, 'us-east-1'],
    [{}, 'us-east-1'],
  ])('region from %j is %s', (env, region) => {
    expect(resolveRegion(env)).toBe(region);
  });

  test('is made on first use, from the environment as it is then, and reused', async () => {
    const lazy = new DynamoApprovalStore({ tableName }); // no client yet: nothing to configure
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = dynaliteEndpoint();
    process.env.AWS_ACCESS_KEY_ID = 'test';
    process.env.AWS_SECRET_ACCESS_KEY = 'test';
    resetSharedDocumentClient();
    await lazy.create(approval());
    expect(await store.get('apr_1')).toMatchObject({ approvalId: 'apr_1' });
    expect(sharedDocumentClient()).toBe(sharedDocumentClient());
    expect(await sharedDocumentClient().config.region()).toBe('us-east-1');
  });
});
describe('a claim runs only what was decided', () => {
  /** A raw write, as a principal with table access would make it (the handler's role cannot: see the IAM tests). */
  async function rewrite(update: string, values: Record<string, unknown>): Promise<void> {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { [TABLE.partitionKey]: 'approval#handler#apr_1' },
        UpdateExpression: update,
        ExpressionAttributeValues: values,
      }),
    );
  }

  test('args rewritten after the decision (fingerprint rewritten to match): the claim is refused and given back', async () => {
    await store.create(approval());
    await store.decide('apr_1', { approved: true, by: 'alice', fingerprint: approval().fingerprint });
    const swapped = { orderId: 'o-999' };
    await rewrite('SET args = :a, fingerprint = :f', { ':a': JSON.stringify(swapped), ':f': callFingerprint('refund', swapped) });
    expect(await store.claim('apr_1', { until: T0 + 30_000 })).toMatchObject({ claimed: false });
    await rewrite('SET fingerprint = :f', { ':f': (await store.get('apr_1'))!.decidedFingerprint });
    expect(await store.claim('apr_1', { until: T0 + 30_000 })).toMatchObject({ claimed: false });
    expect((await rawItem('approval#handler#apr_1'))?.claimedUntil).toBeUndefined();
  });

  test('a decision taken on other args than the stored ones is refused (the decide condition reads tool and args)', async () => {
    await store.create(approval());
    await expect(
      store.decide('apr_1', { approved: true, by: 'alice', fingerprint: callFingerprint('refund', { orderId: 'o-2' }) }),
    ).rejects.toMatchObject({ conflict: 'fingerprint_mismatch' });
    expect(await store.get('apr_1')).toMatchObject({ status: 'pending' });
  });
});

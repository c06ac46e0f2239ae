import { approvalsApi, type ApprovalsApi } from '../../lambda/approvals/api';
import { callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { APPROVER_ARN, functionUrlEvent } from '../support/function-url-event';
import { captureLogsOfEachTest } from '../support/events';

/** The approvals API driven with function-URL events (payload 2.0, IAM authorizer) on dynalite. */

captureLogsOfEachTest();

const T0 = Date.UTC(2030, 0, 1);
const TTL_S = 3600;
let time: number;
let store: DynamoApprovalStore;
let api: ApprovalsApi;

beforeEach(async () => {
  time = T0;
  const table = await createTestTable();
  store = new DynamoApprovalStore({ tableName: table.tableName, client: table.client, now: () => time, ttlSeconds: TTL_S });
  api = approvalsApi({ store });
});

async function create(id: string, args: Record<string, unknown> = { orderId: id }): Promise<string> {
  await store.create({ approvalId: id, tool: 'refund', args, runId: `r-${id}`, callId: `c-${id}`, fingerprint: callFingerprint('refund', args) });
  return callFingerprint('refund', args);
}

async function call(method: string, path: string, options: Parameters<typeof functionUrlEvent>[2] = {}): Promise<{ status: number; body: any }> {
  const result = await api(functionUrlEvent(method, path, options));
  expect(result.headers).toMatchObject({ 'content-type': 'application/json' });
  return { status: result.statusCode!, body: JSON.parse(result.body!) };
}

const decide = (id: string, body: unknown, userArn?: string | null) => call('POST', `/approvals/${id}/decision`, { body, userArn });

describe('GET /approvals/{id}', () => {
  test('the record, snake_case with ISO times and the fingerprint a decision needs', async () => {
    const fingerprint = await create('a1');
    expect(await call('GET', '/approvals/a1')).toEqual({
      status: 200,
      body: {
        approval_id: 'a1',
        tool: 'refund',
        args: { orderId: 'a1' },
        run_id: 'r-a1',
        call_id: 'c-a1',
        status: 'pending',
        fingerprint,
        created_at: new Date(T0).toISOString(),
        expires_at: new Date(T0 + TTL_S * 1000).toISOString(),
      },
    });
  });

  test('missing: 404 not_found; expired: 200 with status expired', async () => {
    expect(await call('GET', '/approvals/nope')).toEqual({ status: 404, body: { error: { type: 'not_found', message: 'Approval nope does not exist.' } } });
    await create('old');
    time = T0 + TTL_S * 1000;
    expect(await call('GET', '/approvals/old')).toMatchObject({ status: 200, body: { status: 'expired' } });
  });
});

describe('POST /approvals/{id}/decision', () => {
  test('decides as the authenticated principal, never as a field of the request', async () => {
    const fingerprint = await create('a1');
    const answer = await decide('a1', { approved: true, reason: 'ok', fingerprint });
    expect(answer).toMatchObject({ status: 200, body: { status: 'approved', decided_by: APPROVER_ARN, reason: 'ok', decided_at: new Date(T0).toISOString() } });
    expect(await store.read('a1')).toMatchObject({ decidedBy: APPROVER_ARN, decidedFingerprint: fingerprint });
  });

  test('4. whoever decides cannot name themselves: a decided_by or by field is a 400 naming it', async () => {
    const fingerprint = await create('a1');
    for (const field of ['decided_by', 'by', 'decidedBy']) {
      const answer = await decide('a1', { approved: true, fingerprint, [field]: 'arn:aws:iam::1:user/someone-else' });
      expect(answer).toMatchObject({ status: 400, body: { error: { type: 'bad_request', message: expect.stringContaining(field) } } });
    }
    expect(await store.read('a1')).toMatchObject({ status: 'pending' });
  });

  test('no IAM identity on the event (not through the URL): 403, nothing decided', async () => {
    const fingerprint = await create('a1');
    expect(await decide('a1', { approved: true, fingerprint }, null)).toMatchObject({ status: 403, body: { error: { type: 'unauthenticated' } } });
    expect(await store.read('a1')).toMatchObject({ status: 'pending' });
  });

  test.each([
    [{ fingerprint: 'f' }, 'approved'],
    [{ approved: 'yes', fingerprint: 'f' }, 'approved'],
    [{ approved: true }, 'fingerprint'],
    [{ approved: true, fingerprint: 'f', reason: 7 }, 'reason'],
    ['not json', 'JSON object'],
    [[true], 'body'],
  ])('bad body %j: 400 naming %s', async (body, named) => {
    await create('a1');
    const answer = await decide('a1', body);
    expect(answer).toMatchObject({ status: 400, body: { error: { type: 'bad_request', message: expect.stringContaining(named) } } });
  });

  test.each(['\u001b[2J\u001b[31mAPPROVED', 'line\nbreak', 'bell\u0007', 'del\u007f', 'c1 \u009b31m'])(
    'a reason with a control character (%j) is a 400 naming reason, and nothing is decided',
    async (reason) => {
      const fingerprint = await create('a1');
      const answer = await decide('a1', { approved: true, fingerprint, reason });
      expect(answer).toMatchObject({ status: 400, body: { error: { type: 'bad_request', message: expect.stringMatching(/reason: must not hold control characters/) } } });
      expect(await store.read('a1')).toMatchObject({ status: 'pending' });
    },
  );

  test('a reason in any script, with punctuation and emoji, is kept as given', async () => {
    const fingerprint = await create('a1');
    const reason = 'Geprüft – ok ✓ 👍 (ticket #12)';
    expect(await decide('a1', { approved: true, fingerprint, reason })).toMatchObject({ status: 200, body: { reason } });
  });

  test('a base64 body (as function URLs send some) is decoded', async () => {
    const fingerprint = await create('a1');
    const event = functionUrlEvent('POST', '/approvals/a1/decision', { body: Buffer.from(JSON.stringify({ approved: false, fingerprint })).toString('base64') });
    const answer = await api({ ...event, isBase64Encoded: true });
    expect(JSON.parse(answer.body!)).toMatchObject({ status: 'denied' });
  });

  test('fingerprint of other args: 409 fingerprint_mismatch; a second decision: 409 already_decided', async () => {
    const fingerprint = await create('a1');
    const other = callFingerprint('refund', { orderId: 'other' });
    expect(await decide('a1', { approved: true, fingerprint: other })).toMatchObject({ status: 409, body: { error: { type: 'fingerprint_mismatch' } } });
    expect(await decide('a1', { approved: false, fingerprint })).toMatchObject({ status: 200 });
    expect(await decide('a1', { approved: true, fingerprint })).toMatchObject({
      status: 409,
      body: { error: { type: 'already_decided', message: expect.stringContaining('denied') } },
    });
  });

  test('missing: 404; expired: 409 expired', async () => {
    expect(await decide('nope', { approved: true, fingerprint: 'f' })).toMatchObject({ status: 404, body: { error: { type: 'not_found' } } });
    const fingerprint = await create('old');
    time = T0 + TTL_S * 1000;
    expect(await decide('old', { approved: true, fingerprint })).toMatchObject({ status: 409, body: { error: { type: 'expired' } } });
  });
});

describe('GET /approvals', () => {
  async function several(): Promise<void> {
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      const fingerprint = await create(id);
      if (id === 'b') await store.decide(id, { approved: true, by: 'x', fingerprint });
      if (id === 'c') await store.decide(id, { approved: false, by: 'x', fingerprint });
      time += 1;
    }
  }

  test('pages with limit and next; a page may hold fewer than limit; every record once', async () => {
    await several();
    const seen: string[] = [];
    let next: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await call('GET', '/approvals', { query: { limit: '2', ...(next ? { next } : {}) } });
      expect(answer.status).toBe(200);
      expect(answer.body.approvals.length).toBeLessThanOrEqual(2);
      seen.push(...answer.body.approvals.map((r: any) => r.approval_id));
      next = answer.body.next;
      if (next === undefined) break;
    }
    expect(next).toBeUndefined();
    expect(seen.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  test('status filters', async () => {
    await several();
    const ids = async (status: string) =>
      (await call('GET', '/approvals', { query: { status } })).body.approvals.map((r: any) => r.approval_id).sort();
    expect(await ids('pending')).toEqual(['a', 'd', 'e']);
    expect(await ids('approved')).toEqual(['b']);
    expect(await ids('denied')).toEqual(['c']);
    expect(await ids('expired')).toEqual([]);
  });

  test.each([
    [{ status: 'done' }, 'status'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ next: 'garbage' }, 'next'],
    [{ sort: 'asc' }, 'sort'],
  ])('bad query %j: 400 naming %s', async (query, named) => {
    expect(await call('GET', '/approvals', { query })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining(named) } } });
  });

  test('records never include call items or kept replies', async () => {
    await several();
    await store.begin({ runId: 'r', callId: 'c' }, { fingerprint: 'f', leaseUntil: T0 + 1000 });
    const answer = await call('GET', '/approvals');
    expect(answer.body.approvals).toHaveLength(5);
    for (const record of answer.body.approvals) expect(Object.keys(record)).not.toContain('result');
  });
});

test('unknown paths are 404, wrong methods 405', async () => {
  expect(await call('GET', '/other')).toMatchObject({ status: 404 });
  expect(await call('DELETE', '/approvals/a')).toMatchObject({ status: 405, body: { error: { type: 'method_not_allowed' } } });
  expect(await call('GET', '/approvals/a/decision')).toMatchObject({ status: 405 });
});

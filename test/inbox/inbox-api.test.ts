import type { ApprovalsInbox } from '../../lambda/inbox/inbox';
import { callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { startIssuer, tampered, unsignedToken, type LocalIssuer } from '../construct/oauth-issuer';
import { createTestTable } from '../support/dynamo';
import { functionUrlEvent } from '../support/function-url-event';
import { loadInboxBundle } from '../support/inbox-bundle';
import { captureLogsOfEachTest } from '../support/events';

/**
 * The inbox's routes as attacks, through its real bundle (its verifier, jose, inside) against a
 * local OIDC issuer and the real stores on dynalite: who may see and decide what, what a token must be, where a decision
 * may come from, and that nothing decides on GET.
 */

captureLogsOfEachTest();

const ORIGIN = 'https://inbox.example.com';
const CLIENT = 'inbox-client';
let issuer: LocalIssuer;
let inbox: ApprovalsInbox;
let stores: Record<string, DynamoApprovalStore>;

beforeAll(async () => {
  issuer = await startIssuer();
  const table = await createTestTable();
  stores = {
    refunds: new DynamoApprovalStore({ tableName: table.tableName, client: table.client, owner: 'refunds' }),
    payouts: new DynamoApprovalStore({ tableName: table.tableName, client: table.client, owner: 'payouts' }),
  };
  inbox = loadInboxBundle({
    issuer: issuer.url,
    clientId: CLIENT,
    origin: ORIGIN,
    handlers: [
      { owner: 'refunds', table: table.tableName, tools: [{ name: 'refund', description: 'Refunds an order.' }] },
      { owner: 'payouts', table: table.tableName, tools: [{ name: 'payout' }] },
    ],
    approvers: { payouts: ['finance'] },
  });
});
afterAll(() => issuer.close());

const alice = () => issuer.token({ sub: 'alice', aud: CLIENT, email: 'alice@example.com', groups: ['support'] });
const fiona = () => issuer.token({ sub: 'fiona', aud: CLIENT, email: 'fiona@example.com', groups: ['finance'] });

async function create(owner: string, id: string, args: Record<string, unknown> = { orderId: id }): Promise<string> {
  const tool = owner === 'refunds' ? 'refund' : 'payout';
  await stores[owner].create({ approvalId: id, tool, args, runId: `r-${id}`, callId: `c-${id}`, fingerprint: callFingerprint(tool, args) });
  return callFingerprint(tool, args);
}

async function call(
  method: string,
  path: string,
  options: { token?: string; origin?: string | null; body?: unknown; query?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const [rawPath, search] = path.split('?');
  const query = { ...Object.fromEntries(new URLSearchParams(search ?? '')), ...options.query };
  const event: any = functionUrlEvent(method, rawPath, { body: options.body, query, userArn: null });
  delete event.requestContext.authorizer;
  if (options.token !== undefined) event.headers.authorization = `Bearer ${options.token}`;
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  if (origin !== null) event.headers.origin = origin;
  const result = await inbox(event);
  const text = result.body ?? '';
  return { status: result.statusCode!, headers: result.headers ?? {}, body: String(result.headers?.['content-type']).startsWith('application/json') ? JSON.parse(text) : text };
}

const decision = (owner: string, id: string) => `/api/approvals/${id}/decision?owner=${owner}`;

test('a signed-in approver decides with the fingerprint shown, and is recorded as oidc:<issuer>#<sub>', async () => {
  const fingerprint = await create('refunds', 'a1');
  const token = await alice();
  const shown = await call('GET', '/api/approvals/a1?owner=refunds', { token });
  expect(shown).toMatchObject({ status: 200, body: { approval_id: 'a1', tool: 'refund', args: { orderId: 'a1' }, fingerprint, status: 'pending' } });
  const decided = await call('POST', decision('refunds', 'a1'), { token, body: { approved: true, fingerprint } });
  expect(decided).toMatchObject({ status: 200, body: { status: 'approved', decided_by: `oidc:${issuer.url}#alice` } });
  expect(decided.headers['cache-control']).toBe('no-store');
});

test("/api/me names the approver and only the owners its groups may decide, with their tools", async () => {
  expect((await call('GET', '/api/me', { token: await alice() })).body).toEqual({
    approver: { id: `oidc:${issuer.url}#alice`, display_name: 'alice@example.com' },
    owners: [{ owner: 'refunds', tools: [{ name: 'refund', description: 'Refunds an order.' }] }],
  });
  expect((await call('GET', '/api/me', { token: await fiona() })).body.owners.map((o: any) => o.owner)).toEqual(['refunds', 'payouts']);
});

test("a user of another group sees neither the approval nor its args: list, read and decide are 404, and it stays pending", async () => {
  const fingerprint = await create('payouts', 'p1', { iban: 'DE00 SECRET' });
  const token = await alice();
  for (const answer of [
    await call('GET', '/api/approvals?owner=payouts', { token, query: { status: 'pending' } }),
    await call('GET', '/api/approvals/p1?owner=payouts', { token }),
    await call('POST', decision('payouts', 'p1'), { token, body: { approved: true, fingerprint } }),
  ]) {
    expect(answer.status).toBe(404);
    expect(JSON.stringify(answer.body)).not.toContain('SECRET');
  }
  expect((await stores.payouts.read('p1'))?.status).toBe('pending');
  // A member of the group may.
  expect((await call('GET', '/api/approvals/p1?owner=payouts', { token: await fiona() })).status).toBe(200);
});

test('an owner the inbox does not serve is 404 too, and an approval id of one owner is not found under another', async () => {
  await create('payouts', 'p2');
  const token = await fiona();
  expect((await call('GET', '/api/approvals?owner=someone-else', { token })).status).toBe(404);
  expect((await call('GET', '/api/approvals/p2?owner=refunds', { token })).status).toBe(404);
});

test('an inbox serving several owners needs the owner named: without ?owner= a request is 400 and says so, and decides nothing', async () => {
  const fingerprint = await create('refunds', 'n1');
  const token = await fiona();
  for (const answer of [
    await call('GET', '/api/approvals', { token }),
    await call('GET', '/api/approvals/n1', { token }),
    await call('POST', '/api/approvals/n1/decision', { token, body: { approved: true, fingerprint } }),
  ]) {
    expect(answer).toMatchObject({ status: 400, body: { error: { type: 'bad_request', message: expect.stringContaining('add ?owner=<owner>') } } });
  }
  expect((await stores.refunds.read('n1'))?.status).toBe('pending');
  expect((await call('GET', '/api/owners/refunds/approvals/n1', { token })).status).toBe(404);
});

describe('tokens the inbox refuses: 401, and nothing is decided', () => {
  const cases: Array<[string, () => Promise<string | undefined>]> = [
    ['no token', async () => undefined],
    ['a token signed by a key the issuer does not have (forged)', async () => issuer.signedByStranger({ sub: 'alice', aud: CLIENT, groups: ['finance'] })],
    ['an unsigned token (alg none)', async () => unsignedToken({ iss: issuer.url, sub: 'alice', aud: CLIENT, exp: Math.floor(Date.now() / 1000) + 600 })],
    ['a token with its groups changed after signing', async () => tampered(await alice(), { groups: ['finance'] })],
    ['an HS256 token keyed with the issuer\'s public key', async () => issuer.hmacWithPublicKey({ sub: 'alice', aud: CLIENT })],
    ['an expired token', async () => issuer.token({ sub: 'alice', aud: CLIENT }, { expiresIn: -120 })],
    ['a token for another audience', async () => issuer.token({ sub: 'alice', aud: 'another-app' })],
    ['a refresh-style token use', async () => issuer.token({ sub: 'alice', aud: CLIENT, token_use: 'refresh' })],
  ];
  test.each(cases)('%s', async (_name, make) => {
    const fingerprint = await create('refunds', 'r1');
    const token = await make();
    for (const answer of [
      await call('GET', '/api/me', { token }),
      await call('GET', '/api/approvals/r1?owner=refunds', { token }),
      await call('POST', decision('refunds', 'r1'), { token, body: { approved: true, fingerprint } }),
    ]) {
      expect(answer).toMatchObject({ status: 401, body: { error: { type: 'unauthenticated' } } });
    }
    expect((await stores.refunds.read('r1'))?.status).toBe('pending');
  });
});

test('a cross-origin POST (or one without Origin) is 403 before anything else, with a valid token', async () => {
  const fingerprint = await create('refunds', 'x1');
  const token = await alice();
  for (const origin of ['https://evil.example.com', 'http://inbox.example.com', `${ORIGIN}.evil.example.com`, 'null', null]) {
    const answer = await call('POST', decision('refunds', 'x1'), { token, origin, body: { approved: true, fingerprint } });
    expect(answer).toMatchObject({ status: 403, body: { error: { type: 'forbidden_origin' } } });
  }
  expect((await stores.refunds.read('x1'))?.status).toBe('pending');
});

test('a plain GET of every link leaves the approval pending', async () => {
  await create('refunds', 'g1');
  const token = await alice();
  for (const path of ['/', '/index.html', '/api/me', '/api/approvals?owner=refunds', '/api/approvals/g1?owner=refunds', decision('refunds', 'g1')]) {
    await call('GET', path, { token });
    await call('GET', path);
  }
  expect((await call('GET', decision('refunds', 'g1'), { token })).status).toBe(405);
  expect((await stores.refunds.read('g1'))?.status).toBe('pending');
});

test('an approval that changed since it was shown answers 409, and one decided already 409 too', async () => {
  await create('refunds', 'c1', { orderId: 'c1', amount: 10 });
  const token = await alice();
  const stale = callFingerprint('refund', { orderId: 'c1', amount: 1000 });
  expect(await call('POST', decision('refunds', 'c1'), { token, body: { approved: true, fingerprint: stale } })).toMatchObject({
    status: 409,
    body: { error: { type: 'fingerprint_mismatch' } },
  });
  const fingerprint = callFingerprint('refund', { orderId: 'c1', amount: 10 });
  expect((await call('POST', decision('refunds', 'c1'), { token, body: { approved: false, reason: 'no', fingerprint } })).status).toBe(200);
  expect(await call('POST', decision('refunds', 'c1'), { token, body: { approved: true, fingerprint } })).toMatchObject({
    status: 409,
    body: { error: { type: 'already_decided' } },
  });
});

test('the page: inlined script and style allowed by hash, nothing third-party, framing refused', async () => {
  const page = await call('GET', '/');
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  const csp = String(page.headers['content-security-policy']);
  expect(csp).toMatch(/default-src 'none'/);
  expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
  expect(csp).toMatch(/frame-ancestors 'none'/);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  expect(page.body).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import|@font-face|[^a-z0-9]url\(/i);
  // Its first load is this one document: under the 60 KB budget (bench/inbox-page.ts measures it).
  expect(Buffer.byteLength(page.body, 'utf8')).toBeLessThan(60 * 1024);
  // The issuer's endpoints come from its discovery document.
  expect(page.body).toContain(`${issuer.url}/authorize`);
});

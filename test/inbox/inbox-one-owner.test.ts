import { callFingerprint } from '../../lambda/ids';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { startIssuer, type LocalIssuer } from '../construct/oauth-issuer';
import { createTestTable } from '../support/dynamo';
import { functionUrlEvent } from '../support/function-url-event';
import { loadInboxBundle } from '../support/inbox-bundle';
import { captureLogsOfEachTest } from '../support/events';

/**
 * An inbox that serves one owner, through its real bundle: its routes need no `owner`, which is
 * that one owner, and a decision made there is recorded as the signed-in approver's.
 */

captureLogsOfEachTest();

const ORIGIN = 'https://inbox.example.com';
const CLIENT = 'inbox-client';
let issuer: LocalIssuer;
let store: DynamoApprovalStore;
let inbox: ReturnType<typeof loadInboxBundle>;

beforeAll(async () => {
  issuer = await startIssuer();
  const table = await createTestTable();
  store = new DynamoApprovalStore({ tableName: table.tableName, client: table.client, owner: 'refunds' });
  inbox = loadInboxBundle({ issuer: issuer.url, clientId: CLIENT, origin: ORIGIN, handlers: [{ owner: 'refunds', table: table.tableName, tools: [{ name: 'refund' }] }] });
});
afterAll(() => issuer.close());

async function call(method: string, path: string, token: string, options: { body?: unknown; query?: Record<string, string> } = {}) {
  const event: any = functionUrlEvent(method, path, { body: options.body, query: options.query, userArn: null });
  delete event.requestContext.authorizer;
  event.headers.authorization = `Bearer ${token}`;
  event.headers.origin = ORIGIN;
  const result = await inbox(event);
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
}

test('list, read and decide without ?owner=: the inbox serves one owner, and that is the one', async () => {
  const args = { orderId: 'o-1' };
  const fingerprint = callFingerprint('refund', args);
  await store.create({ approvalId: 'one1', tool: 'refund', args, runId: 'r1', callId: 'c1', fingerprint });
  const token = await issuer.token({ sub: 'sam', aud: CLIENT });
  expect(await call('GET', '/api/approvals', token, { query: { status: 'pending' } })).toMatchObject({ status: 200, body: { approvals: [{ approval_id: 'one1' }] } });
  expect(await call('GET', '/api/approvals/one1', token)).toMatchObject({ status: 200, body: { approval_id: 'one1', args, fingerprint } });
  expect(await call('POST', '/api/approvals/one1/decision', token, { body: { approved: true, fingerprint } })).toMatchObject({
    status: 200,
    body: { status: 'approved', decided_by: `oidc:${issuer.url}#sam` },
  });
  expect(await store.read('one1')).toMatchObject({ status: 'approved', decidedBy: `oidc:${issuer.url}#sam` });
  // Naming the owner it serves works too; naming another is 404.
  expect((await call('GET', '/api/approvals/one1', token, { query: { owner: 'refunds' } })).status).toBe(200);
  expect((await call('GET', '/api/approvals/one1', token, { query: { owner: 'payouts' } })).status).toBe(404);
});

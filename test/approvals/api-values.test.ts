/**
 * The approvals API names what was wrong with a request (the query parameter, the body's field, the
 * routes it serves), never the value that arrived: a secret in a query value, the path or the body
 * comes back in no answer. Stores' own refusals of a `next` do the same.
 */
import { approvalsApi, type ApprovalsApi } from '../../lambda/approvals/api';
import { callFingerprint } from '../../lambda/ids';
import { MemoryApprovalStore } from '../../lambda/stores/memory';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { functionUrlEvent } from '../support/function-url-event';

const SECRET = 'SECRET-4111-1111-1111-1111';

let store: DynamoApprovalStore;
let api: ApprovalsApi;
let fingerprint: string;

beforeAll(async () => {
  const table = await createTestTable();
  store = new DynamoApprovalStore({ tableName: table.tableName, client: table.client });
  api = approvalsApi({ store });
  const args = { orderId: 'o1' };
  fingerprint = callFingerprint('refund', args);
  await store.create({ approvalId: 'a1', tool: 'refund', args, runId: 'r1', callId: 'c1', fingerprint });
});

async function call(method: string, path: string, options: Parameters<typeof functionUrlEvent>[2] = {}): Promise<{ status: number; text: string; body: any }> {
  const result = await api(functionUrlEvent(method, path, options));
  return { status: result.statusCode!, text: result.body!, body: JSON.parse(result.body!) };
}

test.each([
  ['status', { status: SECRET }, /^status must be one of pending, approved, denied, expired\.$/],
  ['limit', { limit: SECRET }, /^limit must be a whole number from 1 to \d+\.$/],
  ['next', { next: SECRET }, /^`next` is not a position this list returned/],
])('a bad `%s` is a 400 naming the parameter and what it takes, not the value', async (_name, query, message) => {
  const answer = await call('GET', '/approvals', { query });
  expect(answer.status).toBe(400);
  expect(answer.body.error.message).toMatch(message);
  expect(answer.text).not.toContain(SECRET);
});

test.each([
  ['a path the API does not serve', `/${SECRET}/a/b/c`, 404],
  ['a path that is not valid percent-encoding', `/approvals/%E0%A4%A${SECRET}`, 400],
])('%s is refused without echoing the path', async (_label, path, status) => {
  const answer = await call('GET', path);
  expect(answer.status).toBe(status);
  expect(answer.text).not.toContain(SECRET);
});

test.each([
  ['approved of a wrong type', { approved: SECRET, fingerprint: 'x' }],
  ['a fingerprint too long', { approved: true, fingerprint: SECRET.repeat(20) }],
  ['a reason with control characters', { approved: false, reason: `\u0007${SECRET}`, fingerprint: 'x' }],
  ['a body that is not JSON', `approved=${SECRET}`],
])('a decision body with %s is a 400 that does not echo it', async (_label, body) => {
  const answer = await call('POST', '/approvals/a1/decision', { body });
  expect(answer.status).toBe(400);
  expect(answer.text).not.toContain(SECRET);
  expect((await store.read('a1'))?.status).toBe('pending');
});

test.each([
  ['the DynamoDB store', () => store],
  ['the memory store', () => new MemoryApprovalStore()],
])("%s refuses a `next` it did not return without quoting it", async (_label, storeOf) => {
  const refusal = storeOf().listPage({ next: SECRET });
  await expect(refusal).rejects.toMatchObject({ name: 'ToolUsageError' });
  await expect(refusal).rejects.not.toThrow(SECRET);
});

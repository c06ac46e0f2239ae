/**
 * The local run's embedded DynamoDB is as closed as its other endpoints: another process on the
 * machine (a `node` process of its own, as another user's script) can neither read the approvals
 * table nor write a decision onto a pending approval without the run's own function keys, a loopback
 * `Host` and no `Origin`; a web page's preflight gets no CORS. Each test is an attack on the real run
 * of the sample's bundles; the last shows that the door opens to the run's keys (so that each
 * refusal above is a refusal of the attacker, not of every request).
 */
import { callFingerprint } from '../../lambda/ids';
import { APPROVAL_ATTRIBUTES as A, DECISION, DECISION_ATTRIBUTES as D, TABLE } from '../../lambda/construct-contract';
import { ApprovalsClient } from '../../approvals-client/client';
import { toEndpoint } from '../../approvals-client/endpoint';
import { LocalRun } from '../../local/runtime';
import { bundleEntry, removeBundles, SEND_REQUEST_ENTRY, sendFromAnotherProcess } from './other-process';
import type { Keys, RawReply } from './raw-aws-request';
import { removeMade, requestRefundApproval, synthesizeSample } from './sample-assembly';

const MADE_UP: Keys = { accessKeyId: 'AKIAMADEUP0000000000', secretAccessKey: 'made-up-secret' };
/** What dynalite alone took for a signature: the shape, with no key behind it. */
const SHAPE_ONLY = 'AWS4-HMAC-SHA256 Credential=nobody/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0';
const ATTACKER_ARGS = { orderId: 'ATTACKER-CHOSEN' };

let run: LocalRun;
let approvals: ApprovalsClient;
let sender: string;
let table: string;
let calls = 0;

beforeAll(async () => {
  const assembly = synthesizeSample();
  [run, sender] = await Promise.all([LocalRun.start({ assembly, print: () => undefined, expireEverySeconds: 60 }), bundleEntry(SEND_REQUEST_ENTRY)]);
  approvals = new ApprovalsClient(toEndpoint(run.apiUrl!, run.region), async () => run.approver);
  const listed = await dynamo('ListTables', {}, { keys: run.credentialsOf('engine') });
  expect(listed.status).toBe(200);
  [table] = JSON.parse(listed.text).TableNames;
}, 120_000);

afterAll(async () => {
  await run?.stop();
  removeMade();
  removeBundles();
});

interface Sent {
  readonly keys?: Keys;
  readonly headers?: Record<string, string>;
  readonly host?: string;
  readonly method?: 'POST' | 'OPTIONS';
}

/** One DynamoDB call to the run's DynamoDB endpoint, sent by another process: signed when `keys` are given. */
function dynamo(operation: string, body: unknown, sent: Sent = {}): Promise<RawReply> {
  const request = {
    origin: run.dynamoEndpointUrl,
    method: sent.method ?? 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${operation}`, ...sent.headers },
    body: sent.method === 'OPTIONS' ? undefined : JSON.stringify(body),
  };
  if (!sent.keys) return sendFromAnotherProcess(sender, request);
  return sendFromAnotherProcess(sender, { ...request, keys: sent.keys, service: 'dynamodb', region: run.region, host: sent.host });
}

/** A refund waiting for approval, and its item as the run's own keys read it. */
async function pendingRefund(): Promise<{ id: string; item: Record<string, any> }> {
  const id = await requestRefundApproval(run, 'door', `door-${++calls}`);
  return { id, item: await itemOf(id) };
}

/** The approval's item, read with the engine's keys (a properly signed request). */
async function itemOf(id: string): Promise<Record<string, any>> {
  const owner = String(run.template.Resources![run.handlerLogicalId].Properties!.Environment.Variables.TOOL_HANDLER_OWNER);
  const key = { [TABLE.partitionKey]: { S: `${TABLE.approvalKeyPrefix}${owner}${TABLE.ownerSeparator}${id}` } };
  const reply = await dynamo('GetItem', { TableName: table, Key: key, ConsistentRead: true }, { keys: run.credentialsOf('engine') });
  expect(reply.status).toBe(200);
  const { Item } = JSON.parse(reply.text);
  expect(Item).toBeDefined();
  return Item;
}

/** The attack: the pending approval's item, approved, with new args and the fingerprint that matches them. */
function approvedByAttacker(item: Record<string, any>): Record<string, any> {
  const fingerprint = callFingerprint(item[A.tool].S, ATTACKER_ARGS);
  const { [A.pendingOwner]: _pending, ...rest } = item;
  return {
    ...rest,
    [A.args]: { S: JSON.stringify(ATTACKER_ARGS) },
    [A.fingerprint]: { S: fingerprint },
    [D.decision]: { S: DECISION.approved },
    [D.decidedBy]: { S: 'arn:aws:iam::000000000000:user/mallory' },
    [D.decidedAt]: { N: String(Date.now()) },
    [D.decidedFingerprint]: { S: fingerprint },
  };
}

/** The approval is as it was: pending, with its own args, its item unchanged. */
async function expectUnchanged(refund: { id: string; item: Record<string, any> }): Promise<void> {
  expect(await itemOf(refund.id)).toEqual(refund.item);
  const record = await approvals.get(refund.id);
  expect(record.status).toBe('pending');
  expect(record.args).toEqual({ orderId: expect.stringMatching(/^door-/) });
}

/** DynamoDB's refusal: HTTP 400, JSON 1.0 `__type`, no CORS header, and nothing of the request repeated. */
function expectRefused(reply: RawReply, type: string): void {
  expect(reply.status).toBe(400);
  expect(reply.headers['content-type']).toBe('application/x-amz-json-1.0');
  expect(JSON.parse(reply.text)).toEqual({ __type: `com.amazon.coral.service#${type}`, message: expect.any(String) });
  const everything = `${reply.text} ${JSON.stringify(reply.headers)}`;
  for (const sent of ['ATTACKER-CHOSEN', 'door-', MADE_UP.accessKeyId, 'evil.example', 'nobody', table]) expect(everything).not.toContain(sent);
  expect(Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
}

describe('key-less, from another process', () => {
  test.each([
    ['no Authorization at all', {}],
    ['a signature\'s shape with no key behind it', { authorization: SHAPE_ONLY, 'x-amz-date': '20260101T000000Z' }],
  ])('%s: a Scan of the table is refused, and returns nothing of it', async (_, headers) => {
    await pendingRefund();
    const reply = await dynamo('Scan', { TableName: table }, { headers });
    expectRefused(reply, 'MissingAuthenticationTokenException');
  });

  test.each([
    ['no Authorization at all', {}],
    ['a signature\'s shape with no key behind it', { authorization: SHAPE_ONLY, 'x-amz-date': '20260101T000000Z' }],
  ])('%s: a PutItem of decision=approved with new args and a matching fingerprint is refused; the approval is unchanged', async (_, headers) => {
    const refund = await pendingRefund();
    const reply = await dynamo('PutItem', { TableName: table, Item: approvedByAttacker(refund.item) }, { headers });
    expectRefused(reply, 'MissingAuthenticationTokenException');
    await expectUnchanged(refund);
  });
});

test('signed with made-up keys: Scan and PutItem are refused (UnrecognizedClientException); the approval is unchanged', async () => {
  const refund = await pendingRefund();
  expectRefused(await dynamo('Scan', { TableName: table }, { keys: MADE_UP }), 'UnrecognizedClientException');
  const put = await dynamo('PutItem', { TableName: table, Item: approvedByAttacker(refund.item) }, { keys: MADE_UP });
  expectRefused(put, 'UnrecognizedClientException');
  await expectUnchanged(refund);
});

test.each(['http://evil.example', 'http://127.0.0.1:8080', 'null'])(
  'signed by the run\'s own keys but with Origin: %s (a web page): refused, with no CORS header; the approval is unchanged',
  async (origin) => {
    const refund = await pendingRefund();
    const keys = run.credentialsOf('handler');
    expectRefused(await dynamo('Scan', { TableName: table }, { keys, headers: { origin } }), 'AccessDeniedException');
    const put = await dynamo('PutItem', { TableName: table, Item: approvedByAttacker(refund.item) }, { keys, headers: { origin } });
    expectRefused(put, 'AccessDeniedException');
    await expectUnchanged(refund);
  },
);

test('a CORS preflight gets no Access-Control-Allow-* header, and is refused', async () => {
  const reply = await dynamo('PutItem', undefined, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://evil.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-amz-date,x-amz-target',
    },
  });
  expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  expectRefused(reply, 'AccessDeniedException');
});

test('a Host that is not loopback is refused, even signed for it by the run\'s own keys; the approval is unchanged', async () => {
  const refund = await pendingRefund();
  const port = new URL(run.dynamoEndpointUrl).port;
  for (const host of ['evil.example', `evil.example:${port}`]) {
    const keys = run.credentialsOf('engine');
    expectRefused(await dynamo('Scan', { TableName: table }, { keys, host }), 'InvalidSignatureException');
    const put = await dynamo('PutItem', { TableName: table, Item: approvedByAttacker(refund.item) }, { keys, host });
    expectRefused(put, 'InvalidSignatureException');
  }
  await expectUnchanged(refund);
});

test('a request signed by the run\'s own keys (the handler\'s, the other functions\') is answered', async () => {
  const refund = await pendingRefund();
  for (const label of ['handler', 'engine'] as const) {
    const reply = await dynamo('Scan', { TableName: table }, { keys: run.credentialsOf(label) });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(reply.text).Items.some((item: any) => item[A.approvalId]?.S === refund.id)).toBe(true);
  }
});

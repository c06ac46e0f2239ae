import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { TABLE } from '../../lambda/names';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { recordRequests, type RequestRecorder } from '../support/sdk-middleware';
import { evaluate, requestContext, type RequestContext, type ScopedStatement } from './dynamodb-iam';
import { actionsOf, onlyResource, statementsOfRole, toolStack, unbundledApp } from './helpers';

/**
 * The construct's IAM statements against the requests the runtime's DynamoDB store really sends
 * (recorded against dynalite): the handler's role must allow every request of the handler's own
 * operations, approvers' must allow `decide` and `list`, and neither may do the other's writes.
 */

const { stack, tools } = toolStack(unbundledApp(), 'Iam');
const approver = new iam.Role(stack, 'Approver', { assumedBy: new iam.AccountRootPrincipal() });
const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
tools.grantDecide(approver);
tools.grantReadApprovals(reader);
const template = Template.fromStack(stack);
const tableArn = { 'Fn::GetAtt': [onlyResource(template, 'AWS::DynamoDB::Table').id, 'Arn'] };

const resources: Record<string, unknown> = {
  table: tableArn,
  [`index/${TABLE.approvalsIndex}`]: { 'Fn::Join': ['', [tableArn, `/index/${TABLE.approvalsIndex}`]] },
};

/** The role's DynamoDB statements on the table or its indexes, each with the resource it names. */
function tableStatements(roleLogicalId: string): ScopedStatement[] {
  return statementsOfRole(template, roleLogicalId).flatMap((statement) => {
    if (!actionsOf(statement).some((a) => a.startsWith('dynamodb:'))) return [];
    const resource = Object.keys(resources).find((name) => JSON.stringify(resources[name]) === JSON.stringify(statement.Resource));
    return resource ? [{ resource, statement }] : [];
  });
}
const roleIdOf = (role: iam.Role) => stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
const policies = {
  handler: tableStatements(stack.getLogicalId(tools.lambdaFunction.role!.node.defaultChild as iam.CfnRole)),
  approver: tableStatements(roleIdOf(approver)),
  reader: tableStatements(roleIdOf(reader)),
};

/** Requests recorded per store operation, e.g. `claim` → its UpdateItem (and any read). */
const requests: Record<string, RequestContext[]> = {};

beforeAll(async () => {
  const { tableName, client } = await createTestTable();
  let clock = Date.UTC(2030, 0, 1);
  const store = new DynamoApprovalStore({ tableName, client, now: () => clock });
  const recorder: RequestRecorder = recordRequests(client);
  async function op<T>(name: string, run: () => Promise<T>): Promise<T> {
    recorder.reset();
    const result = await run();
    requests[name] = [...(requests[name] ?? []), ...recorder.sent.map((s) => requestContext(s.command, s.input))];
    return result;
  }

  const approval = { approvalId: 'apr_1', tool: 'refund', args: { orderId: 'o1' }, runId: 'r1', callId: 'c1', fingerprint: 'f1' };
  await op('create', () => store.create(approval));
  await op('create again', () => store.create(approval));
  await op('get', () => store.get('apr_1'));
  await op('claim before decision', () => store.claim('apr_1', { until: clock + 60_000, allowedTools: new Set(['refund']) }));
  await op('decide', () => store.decide('apr_1', { approved: true, by: 'alice', reason: 'fine' }));
  await op('list', () => store.list({ pending: false }));
  const first = await op('claim', () => store.claim('apr_1', { until: clock + 60_000, allowedTools: new Set(['refund']) }));
  if (first.claimed) await op('release', () => store.release('apr_1', first.token));
  const second = await op('claim', () => store.claim('apr_1', { until: clock + 60_000 }));
  if (second.claimed) await op('complete', () => store.complete('apr_1', second.token, { refunded: 'o1' }));

  const call = { runId: 'r2', callId: 'c2' };
  const begun = await op('begin', () => store.begin(call, { fingerprint: 'g', leaseUntil: clock + 60_000 }));
  if (begun.state === 'started') await op('finish', () => store.finish(call, begun.token, { status: 'ok' }));
  await op('begin (done)', () => store.begin(call, { fingerprint: 'g', leaseUntil: clock + 60_000 }));
  const failed = { runId: 'r3', callId: 'c3' };
  const third = await op('begin', () => store.begin(failed, { fingerprint: 'h', leaseUntil: clock + 60_000 }));
  if (third.state === 'started') await op('abandon', () => store.abandon(failed, third.token));
  const lapsed = { runId: 'r4', callId: 'c4' };
  await op('begin', () => store.begin(lapsed, { fingerprint: 'i', leaseUntil: clock + 1_000 }));
  clock += 2_000;
  await op('begin (takeover)', () => store.begin(lapsed, { fingerprint: 'i', leaseUntil: clock + 60_000 }));
  recorder.detach();
});

const HANDLER_OPERATIONS = ['create', 'create again', 'get', 'claim before decision', 'claim', 'release', 'complete', 'begin', 'finish', 'begin (done)', 'abandon', 'begin (takeover)'];

test('every operation was exercised', () => {
  for (const name of [...HANDLER_OPERATIONS, 'decide', 'list']) expect(requests[name]?.length ?? 0).toBeGreaterThan(0);
});

describe("the handler's role", () => {
  test.each(HANDLER_OPERATIONS)('allows every request of %s', (name) => {
    for (const request of requests[name] ?? []) {
      expect({ request, decision: evaluate(policies.handler, request) }).toEqual({ request, decision: 'allowed' });
    }
  });

  test('denies decide explicitly', () => {
    for (const request of requests.decide) expect(evaluate(policies.handler, request)).toBe('explicitly denied');
  });

  test('denies list (a Scan)', () => {
    for (const request of requests.list) expect(evaluate(policies.handler, request)).toBe('denied by default');
  });
});

describe("an approver's role (grantDecide)", () => {
  test('allows decide and list', () => {
    for (const request of [...requests.decide, ...requests.list]) expect(evaluate(policies.approver, request)).toBe('allowed');
  });

  test.each(['create', 'claim', 'release', 'complete', 'begin', 'finish', 'abandon'])('denies the writes of %s', (name) => {
    const writes = (requests[name] ?? []).filter((r) => r.action !== 'dynamodb:GetItem');
    expect(writes.length).toBeGreaterThan(0);
    for (const request of writes) expect(evaluate(policies.approver, request)).not.toBe('allowed');
  });
});

describe("a reader's role (grantReadApprovals)", () => {
  test('allows get and list, denies decide', () => {
    for (const request of [...requests.get, ...requests.list]) expect(evaluate(policies.reader, request)).toBe('allowed');
    for (const request of requests.decide) expect(evaluate(policies.reader, request)).not.toBe('allowed');
  });
});

describe('the model', () => {
  test('takes attribute names from placeholders, bare names and every expression, but not nested path elements', () => {
    const request = requestContext('UpdateItemCommand', {
      Key: { pk: { S: 'approval#x' } },
      UpdateExpression: 'SET #a = :v0, b.c = :v1 REMOVE #d[0].#e',
      ConditionExpression: 'attribute_exists(#f) AND size(g) > :v2',
      ExpressionAttributeNames: { '#a': 'a', '#d': 'd', '#e': 'e', '#f': 'f' },
      ReturnValues: 'ALL_NEW',
    });
    expect(request).toEqual({
      action: 'dynamodb:UpdateItem',
      resource: 'table',
      leadingKeys: ['approval#x'],
      attributes: ['pk', 'a', 'b', 'd', 'f', 'g'],
      returnValues: 'ALL_NEW',
    });
  });

  test('a handler write naming a decision attribute only in its condition is denied', () => {
    const request = requestContext('UpdateCommand', {
      Key: { pk: 'approval#x' },
      UpdateExpression: 'SET #claimToken = :v0',
      ConditionExpression: '#decision = :v1',
      ExpressionAttributeNames: { '#claimToken': 'claimToken', '#decision': 'decision' },
    });
    expect(evaluate(policies.handler, request)).toBe('explicitly denied');
  });

  test.each(['handler', 'approver', 'reader'] as const)('the %s may GetItem an approval item but not a call item (a kept reply)', (who) => {
    const get = (pk: string) => requestContext('GetCommand', { Key: { [TABLE.partitionKey]: pk }, ConsistentRead: true });
    expect(evaluate(policies[who], get(`${TABLE.approvalKeyPrefix}x`))).toBe('allowed');
    expect(evaluate(policies[who], get(`${TABLE.callKeyPrefix}["r","c"]`))).toBe('denied by default');
  });

  test.each(['handler', 'approver', 'reader'] as const)('the %s may not Query', (who) => {
    const request = requestContext('QueryCommand', {
      KeyConditionExpression: '#pk = :v0',
      ExpressionAttributeNames: { '#pk': TABLE.partitionKey },
    });
    expect(evaluate(policies[who], { ...request, leadingKeys: [`${TABLE.approvalKeyPrefix}x`] })).toBe('denied by default');
  });

  test('a Scan has no leading key, so readers scan only the approvals index, never the table with its call items', () => {
    const scanTable = requestContext('ScanCommand', {});
    expect(scanTable.leadingKeys).toEqual([]);
    for (const who of ['reader', 'approver', 'handler'] as const) expect(evaluate(policies[who], scanTable)).toBe('denied by default');
    const scanIndex = requestContext('ScanCommand', { IndexName: TABLE.approvalsIndex });
    expect(evaluate(policies.reader, scanIndex)).toBe('allowed');
    expect(evaluate(policies.approver, scanIndex)).toBe('allowed');
    expect(evaluate(policies.handler, scanIndex)).toBe('denied by default');
  });

  test('the handler may not touch other partitions', () => {
    const request = requestContext('GetCommand', { Key: { pk: 'other#x' } });
    expect(evaluate(policies.handler, request)).toBe('denied by default');
    const deleteApproval = requestContext('DeleteCommand', { Key: { pk: 'approval#x' } });
    expect(evaluate(policies.handler, deleteApproval)).toBe('denied by default');
  });
});

import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { callFingerprint } from '../../lambda/ids';
import { CALL_ATTRIBUTES, TABLE } from '../../lambda/names';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { recordRequests, type RequestRecorder } from '../support/sdk-middleware';
import { evaluate, requestContext, type RequestContext, type ScopedStatement } from './dynamodb-iam';
import { actionsOf, onlyResource, statementsOfRole, toolStack, unbundledApp } from './helpers';

/**
 * Who may do what on the approvals table (§9), tried as attacks: the construct's synthesized
 * statements, evaluated against the requests the real store sends (recorded against dynalite) and
 * against the requests an attacker holding a role would send.
 */

const { stack, tools } = toolStack(unbundledApp(), 'Iam');
const approver = new iam.Role(stack, 'Approver', { assumedBy: new iam.AccountRootPrincipal() });
const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
tools.grantApprove(approver);
tools.grantReadApprovals(reader);
const template = Template.fromStack(stack);
const tableArn = { 'Fn::GetAtt': [onlyResource(template, 'AWS::DynamoDB::Table').id, 'Arn'] };

/** The table-relative resource a statement's `Resource` entry names, or undefined for other resources. */
function tableResource(resource: unknown): string | undefined {
  if (JSON.stringify(resource) === JSON.stringify(tableArn)) return 'table';
  const parts = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1];
  if (parts?.length === 2 && JSON.stringify(parts[0]) === JSON.stringify(tableArn) && typeof parts[1] === 'string') {
    return parts[1].replace(/^\//, '');
  }
  return undefined;
}

/** The role's statements on the table, its indexes and its stream, one entry per table resource named. */
function tableStatements(role: iam.IRole): ScopedStatement[] {
  const roleId = stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
  return statementsOfRole(template, roleId).flatMap((statement) =>
    ([] as unknown[]).concat(statement.Resource).flatMap((resource) => {
      const name = tableResource(resource);
      return name ? [{ resource: name, statement }] : [];
    }),
  );
}

const policies = {
  handler: tableStatements(tools.lambdaFunction.role!),
  engine: tableStatements(tools.approvalsEngine.role!),
  api: tableStatements(tools.approvalsApi.role!),
  approver: tableStatements(approver),
  reader: tableStatements(reader),
};
type Who = keyof typeof policies;

/** Requests recorded per store operation. */
const requests: Record<string, RequestContext[]> = {};

beforeAll(async () => {
  const { tableName, client } = await createTestTable();
  let clock = Date.UTC(2030, 0, 1);
  const store = new DynamoApprovalStore({ tableName, client, now: () => clock, ttlSeconds: 3600 });
  const recorder: RequestRecorder = recordRequests(client);
  async function op<T>(name: string, run: () => Promise<T>): Promise<T> {
    recorder.reset();
    const result = await run();
    requests[name] = [...(requests[name] ?? []), ...recorder.sent.map((s) => requestContext(s.command, s.input))];
    return result;
  }
  const args = { orderId: 'o1' };
  const approval = { approvalId: 'apr_1', tool: 'refund', args, runId: 'r1', callId: 'c1', fingerprint: callFingerprint('refund', args) };
  await op('create', () => store.create(approval));
  await op('create', () => store.create(approval));
  await op('claim', () => store.claim('apr_1', { until: clock + 60_000, allowedTools: new Set(['refund']) }));
  await op('read', () => store.read('apr_1'));
  await op('decide', () => store.decide('apr_1', { approved: true, by: 'alice', reason: 'fine', fingerprint: approval.fingerprint }));
  await op('list', () => store.listPage({ status: 'approved', limit: 10 }));
  const first = await op('claim', () => store.claim('apr_1', { until: clock + 60_000, allowedTools: new Set(['refund']), token: 't1' }));
  if (first.claimed) await op('release', () => store.release('apr_1', 't1'));
  const second = await op('claim', () => store.claim('apr_1', { until: clock + 60_000, token: 't2' }));
  if (second.claimed) await op('complete', () => store.complete('apr_1', 't2', { refunded: 'o1' }));
  await op('claim', () => store.claim('apr_1', { until: clock + 60_000, token: 't3' })); // refused: finished

  const call = { runId: 'r2', callId: 'c2' };
  const begun = await op('begin', () => store.begin(call, { fingerprint: 'g', leaseUntil: clock + 60_000 }));
  if (begun.state === 'started') await op('finish', () => store.finish(call, begun.token, { status: 'ok' }));
  await op('begin', () => store.begin(call, { fingerprint: 'g', leaseUntil: clock + 60_000 }));
  const failed = { runId: 'r3', callId: 'c3' };
  const third = await op('begin', () => store.begin(failed, { fingerprint: 'h', leaseUntil: clock + 60_000 }));
  if (third.state === 'started') await op('abandon', () => store.abandon(failed, third.token));
  const lapsed = { runId: 'r4', callId: 'c4' };
  await op('begin', () => store.begin(lapsed, { fingerprint: 'i', leaseUntil: clock + 1_000 }));
  clock += 2_000;
  await op('begin', () => store.begin(lapsed, { fingerprint: 'i', leaseUntil: clock + 60_000 }));
  recorder.detach();
});

const ENGINE_OPERATIONS = ['create', 'claim', 'release', 'complete'];
const API_OPERATIONS = ['read', 'decide', 'list'];
const CALL_OPERATIONS = ['begin', 'finish', 'abandon'];

function decisions(who: Who, names: string[]): Array<{ name: string; decision: string }> {
  return names.flatMap((name) => (requests[name] ?? []).map((request) => ({ name, decision: evaluate(policies[who], request) })));
}

/** A raw write as an attacker holding a role would send it. */
function update(pk: string, updateExpression: string, names: Record<string, string>, condition?: string): RequestContext {
  return requestContext('UpdateCommand', {
    Key: { [TABLE.partitionKey]: pk },
    UpdateExpression: updateExpression,
    ...(condition ? { ConditionExpression: condition } : {}),
    ExpressionAttributeNames: names,
  });
}

test('every operation was exercised', () => {
  for (const name of [...ENGINE_OPERATIONS, ...API_OPERATIONS, ...CALL_OPERATIONS]) expect(requests[name]?.length ?? 0).toBeGreaterThan(0);
});

describe('each role allows exactly its own part', () => {
  test.each([
    ['handler', CALL_OPERATIONS],
    ['engine', ENGINE_OPERATIONS],
    ['api', API_OPERATIONS],
  ] as const)('the %s role allows every request of its operations', (who, names) => {
    for (const outcome of decisions(who, [...names])) expect(outcome).toEqual({ name: outcome.name, decision: 'allowed' });
  });

  test.each([
    ['handler', [...ENGINE_OPERATIONS, ...API_OPERATIONS, 'read']],
    ['engine', [...CALL_OPERATIONS, 'list']],
    ['api', [...CALL_OPERATIONS, 'create', 'release', 'complete']],
    ['approver', [...ENGINE_OPERATIONS, ...API_OPERATIONS, ...CALL_OPERATIONS]],
  ] as const)('the %s role is refused every request of the others', (who, names) => {
    // The API reads an approval the way a refused claim does: that read is its own too.
    const outcomes = decisions(who, [...names]).filter(({ name }) => !(who === 'api' && name === 'claim'));
    expect(outcomes.length).toBeGreaterThan(0);
    for (const outcome of outcomes) expect(outcome.decision).not.toBe('allowed');
  });

  test('a reader reads approvals (GetItem, the index) and writes nothing', () => {
    for (const outcome of decisions('reader', ['read', 'list'])) expect(outcome.decision).toBe('allowed');
    const writes = [...ENGINE_OPERATIONS, 'decide', ...CALL_OPERATIONS].flatMap((name) => requests[name] ?? []).filter((r) => r.action !== 'dynamodb:GetItem');
    for (const request of writes) expect(evaluate(policies.reader, request)).not.toBe('allowed');
    const readerActions = policies.reader.flatMap(({ statement }) => actionsOf(statement));
    expect(new Set(readerActions)).toEqual(new Set(['dynamodb:GetItem', 'dynamodb:Scan']));
  });
});

describe('attacks with the handler role (the role every user tool runs with)', () => {
  const approvalKey = `${TABLE.approvalKeyPrefix}apr_1`;

  test('1. args swapped after the decision: rewriting fingerprint or args of an approval is explicitly denied', () => {
    expect(evaluate(policies.handler, update(approvalKey, 'SET #f = :f', { '#f': 'fingerprint' }))).toBe('explicitly denied');
    expect(evaluate(policies.handler, update(approvalKey, 'SET #a = :a', { '#a': 'args' }))).toBe('explicitly denied');
  });

  test('2. replay: removing completedAt of a finished approval is explicitly denied', () => {
    expect(evaluate(policies.handler, update(approvalKey, 'REMOVE #c', { '#c': 'completedAt' }))).toBe('explicitly denied');
  });

  test('no access at all to approval items: not GetItem, PutItem, DeleteItem, BatchGetItem, ConditionCheckItem, PartiQL', () => {
    for (const action of ['GetItem', 'PutItem', 'DeleteItem', 'BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem']) {
      const request: RequestContext = { action: `dynamodb:${action}`, resource: 'table', leadingKeys: [approvalKey], attributes: ['pk'] };
      expect({ action, decision: evaluate(policies.handler, request) }).toEqual({ action, decision: 'explicitly denied' });
    }
    for (const action of ['PartiQLSelect', 'PartiQLUpdate', 'PartiQLInsert', 'PartiQLDelete', 'Scan', 'Query', 'ExportTableToPointInTime']) {
      const request: RequestContext = { action: `dynamodb:${action}`, resource: 'table', leadingKeys: [], attributes: [] };
      expect({ action, decision: evaluate(policies.handler, request) }).toEqual({ action, decision: 'explicitly denied' });
    }
  });

  test('no Query or Scan of the approvals index, no read of the table stream', () => {
    for (const [action, resource] of [['Query', `index/${TABLE.approvalsIndex}`], ['Scan', `index/${TABLE.approvalsIndex}`], ['GetRecords', 'stream/2030']]) {
      const request: RequestContext = { action: `dynamodb:${action}`, resource, leadingKeys: ['apr_1'], attributes: [] };
      expect(evaluate(policies.handler, request)).toBe('explicitly denied');
    }
  });

  test('a call-item write naming approvalId (which would put a kept reply into the approvals index) is explicitly denied', () => {
    const request = update(`${TABLE.callKeyPrefix}["r","c"]`, 'SET #a = :a', { '#a': 'approvalId' });
    expect(evaluate(policies.handler, request)).toBe('explicitly denied');
    for (const attribute of ['decision', 'tool', 'result', 'owner']) {
      expect(evaluate(policies.handler, update(`${TABLE.callKeyPrefix}x`, 'SET #a = :a', { '#a': attribute }))).toBe('explicitly denied');
    }
    for (const attribute of Object.values(CALL_ATTRIBUTES)) {
      expect(evaluate(policies.handler, update(`${TABLE.callKeyPrefix}x`, 'SET #a = :a', { '#a': attribute }))).toBe('allowed');
    }
  });

  test('the denials hold even if the role is later given the whole table (explicit Deny beats any Allow)', () => {
    const broad: ScopedStatement[] = [
      ...policies.handler,
      { resource: 'table', statement: { Effect: 'Allow', Action: 'dynamodb:*' } },
      { resource: 'index/*', statement: { Effect: 'Allow', Action: 'dynamodb:*' } },
    ];
    expect(evaluate(broad, update(approvalKey, 'SET #d = :d', { '#d': 'decision' }))).toBe('explicitly denied');
    expect(evaluate(broad, { action: 'dynamodb:Scan', resource: 'table', leadingKeys: [], attributes: [] })).toBe('explicitly denied');
    expect(evaluate(broad, { action: 'dynamodb:Query', resource: `index/${TABLE.approvalsIndex}`, leadingKeys: ['apr_1'], attributes: [] })).toBe(
      'explicitly denied',
    );
  });
});

describe('attacks with the other roles', () => {
  test("3. an approver cannot touch a claim: it has no table access at all, only the API's URL", () => {
    expect(policies.approver).toEqual([]);
    const clearClaim = update(`${TABLE.approvalKeyPrefix}apr_1`, 'REMOVE #c', { '#c': 'claimedUntil' });
    expect(evaluate(policies.approver, clearClaim)).toBe('denied by default');
  });

  test("the API's role may write the decision only: not a claim, a completion, tool, owner, args by themselves", () => {
    const key = `${TABLE.approvalKeyPrefix}apr_1`;
    for (const attribute of ['claimedUntil', 'claimToken', 'completedAt', 'result', 'owner', 'fingerprint']) {
      expect({ attribute, decision: evaluate(policies.api, update(key, 'SET #a = :a', { '#a': attribute })) }).toEqual({
        attribute,
        decision: 'denied by default',
      });
    }
    expect(evaluate(policies.api, update(`${TABLE.callKeyPrefix}x`, 'SET #d = :d', { '#d': 'decision' }))).toBe('denied by default');
  });

  test("the honest limit: IAM lets the engine's role write a decision, since its claim must test one; only its code never does", () => {
    const decideWrite = requests.decide.find((request) => request.action === 'dynamodb:UpdateItem')!;
    expect(evaluate(policies.engine, decideWrite)).toBe('allowed');
  });

  test("the engine's role reaches approval items only, never a call item (a kept reply)", () => {
    const get = (pk: string) => requestContext('GetCommand', { Key: { [TABLE.partitionKey]: pk }, ConsistentRead: true });
    expect(evaluate(policies.engine, get(`${TABLE.approvalKeyPrefix}x`))).toBe('allowed');
    expect(evaluate(policies.engine, get(`${TABLE.callKeyPrefix}["r","c"]`))).toBe('denied by default');
    expect(evaluate(policies.engine, { action: 'dynamodb:Scan', resource: 'table', leadingKeys: [], attributes: [] })).toBe('denied by default');
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

  test('NotAction, ForAnyValue and wildcard resources evaluate as IAM documents them', () => {
    const deny: ScopedStatement = { resource: 'index/*', statement: { Effect: 'Deny', NotAction: ['dynamodb:GetItem'] } };
    const allow: ScopedStatement = { resource: 'index/*', statement: { Effect: 'Allow', Action: 'dynamodb:*' } };
    const on = (action: string): RequestContext => ({ action, resource: 'index/approvals', leadingKeys: [], attributes: [] });
    expect(evaluate([deny, allow], on('dynamodb:GetItem'))).toBe('allowed');
    expect(evaluate([deny, allow], on('dynamodb:Scan'))).toBe('explicitly denied');
    const notEquals: ScopedStatement = {
      resource: 'table',
      statement: { Effect: 'Deny', Action: 'dynamodb:UpdateItem', Condition: { 'ForAnyValue:StringNotEquals': { 'dynamodb:Attributes': ['a'] } } },
    };
    expect(evaluate([notEquals], { action: 'dynamodb:UpdateItem', resource: 'table', leadingKeys: [], attributes: ['a', 'b'] })).toBe('explicitly denied');
    expect(evaluate([notEquals], { action: 'dynamodb:UpdateItem', resource: 'table', leadingKeys: [], attributes: ['a'] })).toBe('denied by default');
  });
});

import * as fs from 'node:fs';
import * as path from 'node:path';
import { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { callFingerprint } from '../../lambda/ids';
import * as lambdaLib from 'aws-cdk-lib/aws-lambda';
import { CALL_ATTRIBUTES, TABLE } from '../../lambda/construct-contract';
import { ToolHandler } from '../../lib';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { recordRequests, type RequestRecorder } from '../support/sdk-middleware';
import { evaluate, requestContext, type RequestContext, type ScopedStatement } from './dynamodb-iam';
import { evaluateInvoke, invokeChecks } from './lambda-iam';
import { actionsOf, onlyResource, props, statementsOfRole, toolStack, unbundledApp } from './helpers';

/**
 * Who may do what on the approvals table, tried as attacks: the construct's synthesized
 * statements, evaluated against the requests the real store sends (recorded against dynalite) and
 * against the requests an attacker holding a role would send. Two handlers, A and B, share one table
 * (B is given A's): every role of A is tried on B's keys, and the handler's role on the approvals
 * functions with `lambda:InvokeFunction` on `*` added.
 */

const { stack, tools } = toolStack(unbundledApp(), 'Iam');
const other = new ToolHandler(stack, 'Other', props({ approvalsTable: tools.approvalsTable }));
const approver = new iam.Role(stack, 'Approver', { assumedBy: new iam.AccountRootPrincipal() });
const reader = new iam.Role(stack, 'Reader', { assumedBy: new iam.AccountRootPrincipal() });
tools.grantApprove(approver);
tools.grantReadApprovals(reader);
const template = Template.fromStack(stack);
const tableArn = { 'Fn::GetAtt': [onlyResource(template, 'AWS::DynamoDB::Table').id, 'Arn'] };
const OWNER = tools.owner;
const OTHER = other.owner;

/** The table-relative resource a statement's `Resource` entry names, or undefined for other resources. */
function tableResource(resource: unknown): string | undefined {
  if (JSON.stringify(resource) === JSON.stringify(tableArn)) return 'table';
  const parts = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1];
  if (parts?.length === 2 && JSON.stringify(parts[0]) === JSON.stringify(tableArn) && typeof parts[1] === 'string') {
    return parts[1].replace(/^\//, '');
  }
  return undefined;
}

function roleStatements(role: iam.IRole): any[] {
  return statementsOfRole(template, stack.getLogicalId(role.node.defaultChild as iam.CfnRole));
}

/** The role's statements on the table, its indexes and its stream, one entry per table resource named. */
function tableStatements(role: iam.IRole): ScopedStatement[] {
  return roleStatements(role).flatMap((statement) =>
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
  expirer: tableStatements(expirerOf(tools).role!),
  approver: tableStatements(approver),
  reader: tableStatements(reader),
};
type Who = keyof typeof policies;

function expirerOf(handler: ToolHandler): lambdaLib.IFunction {
  return handler.node.findChild('Approvals').node.findChild('Expirer') as lambdaLib.IFunction;
}

/** Requests recorded per store operation, for owner A (`tools`) and owner B (`other`). */
const requests: Record<string, RequestContext[]> = {};
const theirs: Record<string, RequestContext[]> = {};

beforeAll(async () => {
  const { tableName, client } = await createTestTable();
  let clock = Date.UTC(2030, 0, 1);
  const recorder: RequestRecorder = recordRequests(client);
  for (const [owner, into] of [[OWNER, requests], [OTHER, theirs]] as const) {
    const store = new DynamoApprovalStore({ tableName, client, now: () => clock, ttlSeconds: 3600, owner });
    async function op<T>(name: string, run: () => Promise<T>): Promise<T> {
      recorder.reset();
      const result = await run();
      into[name] = [...(into[name] ?? []), ...recorder.sent.map((s) => requestContext(s.command, s.input))];
      return result;
    }
    const args = { orderId: 'o1' };
    const approval = { approvalId: 'apr_1', tool: 'refund', args, runId: 'r1', callId: 'c1', fingerprint: callFingerprint('refund', args) };
    await op('create', () => store.create(approval));
    await op('create', () => store.create(approval));
    await op('claim', () => store.claim('apr_1', { until: clock + 60_000, allowedTools: new Set(['refund']) }));
    await op('read', () => store.read('apr_1'));
    await op('decide', () => store.decide('apr_1', { approved: true, by: 'alice', reason: 'fine', fingerprint: approval.fingerprint }));
    await op('create', () => store.create(approval)); // a redelivered call of a decided approval: refused upsert, then a read
    await op('list', () => store.listPage({ status: 'approved', limit: 10 }));
    await op('list', () => store.listPage({ status: 'pending', limit: 10 }));
    const first = await op('claim', () => store.claim('apr_1', { until: clock + 60_000, allowedTools: new Set(['refund']), token: 't1' }));
    if (first.claimed) await op('release', () => store.release('apr_1', 't1'));
    const second = await op('claim', () => store.claim('apr_1', { until: clock + 60_000, token: 't2' }));
    if (second.claimed) await op('complete', () => store.complete('apr_1', 't2', { refunded: 'o1' }));
    await op('claim', () => store.claim('apr_1', { until: clock + 60_000, token: 't3' })); // refused: finished
    await op('create', () => store.create({ ...approval, approvalId: 'apr_due', callId: 'c9' }));
    clock += 3_600_001;
    await op('expire', () => store.expireDue());
    // A target could not be told: handed back to the next run, which takes it again.
    await op('expire', () => store.retryExpiry('apr_due'));
    await op('expire', () => store.expireDue());
    clock -= 3_600_001;

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
    const window = { counter: '["search","AIDAALICE"]', start: clock, end: clock + 60_000, limit: 1 };
    await op('count', () => store.countCall(window));
    await op('count', () => store.countCall(window)); // refused: the window is full

    // A flow's kept task token: kept with a pending approval, taken as its completion is recorded, put
    // back when the engine could not be reached, then recorded as closed.
    const replyTo = { kind: 'sfn' as const, taskToken: 'AQB-secret-task-token' };
    await op('flow', () => store.flows.keepReplyTo('apr_flow', replyTo));
    await op('flow', () => store.flows.beginCompletion('apr_flow', undefined, 'f1', 'succeeded'));
    await op('flow', () => store.flows.undoCompletion('apr_flow', replyTo, 'f1', true));
    await op('flow', () => store.flows.beginCompletion('apr_flow', undefined, 'f2', 'succeeded'));
    await op('flow', () => store.flows.completedClosed('apr_flow', 'f2'));
    await op('flow', () => store.flows.beginCompletion('apr_now', replyTo, 'f3', 'succeeded'));
  }
  recorder.detach();
});

const ENGINE_OPERATIONS = ['create', 'claim', 'release', 'complete'];
const API_OPERATIONS = ['read', 'decide', 'list'];
const EXPIRER_OPERATIONS = ['expire'];
const CALL_OPERATIONS = ['begin', 'finish', 'abandon', 'count'];
/** What the handler and the expirer do with a waiting flow's kept token (docs/flows.md). */
const FLOW_OPERATIONS = ['flow'];
const EVERY_OPERATION = [...ENGINE_OPERATIONS, ...API_OPERATIONS, ...EXPIRER_OPERATIONS, ...CALL_OPERATIONS, ...FLOW_OPERATIONS];

function decisions(who: Who, names: string[], from = requests): Array<{ name: string; decision: string }> {
  return names.flatMap((name) => (from[name] ?? []).map((request) => ({ name, decision: evaluate(policies[who], request) })));
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

test('every operation was exercised, for both owners', () => {
  for (const name of EVERY_OPERATION) {
    expect(requests[name]?.length ?? 0).toBeGreaterThan(0);
    expect(theirs[name]?.length ?? 0).toBe(requests[name].length);
  }
  expect(OWNER).not.toBe(OTHER);
});

describe('each role allows exactly its own part', () => {
  test.each([
    ['handler', [...CALL_OPERATIONS, ...FLOW_OPERATIONS]],
    ['engine', ENGINE_OPERATIONS],
    ['api', API_OPERATIONS],
    ['expirer', [...EXPIRER_OPERATIONS, ...FLOW_OPERATIONS]],
  ] as const)('the %s role allows every request of its operations', (who, names) => {
    for (const outcome of decisions(who, [...names])) expect(outcome).toEqual({ name: outcome.name, decision: 'allowed' });
  });

  test.each(['handler', 'engine', 'api', 'expirer', 'reader'] as const)(
    "the %s role of owner A is refused every request of owner B's store, whatever the operation",
    (who) => {
      const outcomes = decisions(who, EVERY_OPERATION, theirs);
      expect(outcomes.length).toBeGreaterThan(20);
      for (const outcome of outcomes) expect({ ...outcome, decision: outcome.decision === 'allowed' ? 'allowed' : 'refused' }).toEqual({ ...outcome, decision: 'refused' });
    },
  );

  test.each([
    ['handler', [...ENGINE_OPERATIONS, ...API_OPERATIONS, ...EXPIRER_OPERATIONS]],
    // Not `expire`: the engine may write any attribute of its owner's approvals (the honest limit below).
    ['engine', [...CALL_OPERATIONS, ...FLOW_OPERATIONS, 'list']],
    ['api', [...CALL_OPERATIONS, ...FLOW_OPERATIONS, 'create', 'release', 'complete', 'expire']],
    ['expirer', [...CALL_OPERATIONS, 'create', 'claim', 'release', 'complete', 'decide']],
    ['approver', EVERY_OPERATION],
  ] as const)('the %s role is refused every request of the others', (who, names) => {
    // A read is a read: the API reads an approval the way a refused claim or create does.
    const reads = (request: RequestContext) => request.action === 'dynamodb:GetItem' || request.action === 'dynamodb:Query';
    const outcomes = names
      .flatMap((name) => (requests[name] ?? []).filter((r) => !(who === 'api' && reads(r))).map((request) => ({ name, decision: evaluate(policies[who], request) })));
    expect(outcomes.length).toBeGreaterThan(0);
    for (const outcome of outcomes) expect(outcome.decision).not.toBe('allowed');
  });

  test("a reader reads its owner's approvals (GetItem, Query of the indexes) and writes nothing", () => {
    for (const outcome of decisions('reader', ['read', 'list'])) expect(outcome.decision).toBe('allowed');
    const writes = EVERY_OPERATION.flatMap((name) => requests[name] ?? []).filter((r) => !['dynamodb:GetItem', 'dynamodb:Query'].includes(r.action));
    expect(writes.length).toBeGreaterThan(0);
    for (const request of writes) expect(evaluate(policies.reader, request)).not.toBe('allowed');
    const readerActions = policies.reader.flatMap(({ statement }) => actionsOf(statement));
    expect(new Set(readerActions)).toEqual(new Set(['dynamodb:GetItem', 'dynamodb:Query']));
  });

  test('no role is allowed a Scan of the table or of any index', () => {
    for (const who of Object.keys(policies) as Who[]) {
      for (const resource of ['table', `index/${TABLE.pendingIndex}`, `index/${TABLE.ownerIndex}`]) {
        expect({ who, resource, decision: evaluate(policies[who], { action: 'dynamodb:Scan', resource, leadingKeys: [], attributes: [] }) }).toEqual({
          who,
          resource,
          decision: expect.not.stringMatching(/^allowed$/),
        });
      }
    }
  });
});

describe('attacks with the handler role (the role every user tool runs with)', () => {
  const approvalKey = `${TABLE.approvalKeyPrefix}${OWNER}#apr_1`;
  const callKey = `${TABLE.callKeyPrefix}${OWNER}#["r","c"]`;

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

  test('no Query or Scan of the indexes, no read of the table stream', () => {
    for (const [action, resource] of [
      ['Query', `index/${TABLE.pendingIndex}`],
      ['Query', `index/${TABLE.ownerIndex}`],
      ['Scan', `index/${TABLE.ownerIndex}`],
      ['GetRecords', 'stream/2030'],
    ]) {
      const request: RequestContext = { action: `dynamodb:${action}`, resource, leadingKeys: [OWNER], attributes: [] };
      expect(evaluate(policies.handler, request)).toBe('explicitly denied');
    }
  });

  test('a call-item write naming owner or pendingOwner (which would put a kept reply into an index) is explicitly denied', () => {
    for (const attribute of ['owner', 'pendingOwner', 'approvalId', 'decision', 'tool', 'result']) {
      expect({ attribute, decision: evaluate(policies.handler, update(callKey, 'SET #a = :a', { '#a': attribute })) }).toEqual({
        attribute,
        decision: 'explicitly denied',
      });
    }
    for (const attribute of Object.values(CALL_ATTRIBUTES)) {
      expect(evaluate(policies.handler, update(callKey, 'SET #a = :a', { '#a': attribute }))).toBe('allowed');
    }
  });

  test("another owner's call items (forging or erasing its kept replies) are explicitly denied, as is any key outside its own calls", () => {
    for (const pk of [`${TABLE.callKeyPrefix}${OTHER}#["r","c"]`, `${TABLE.callKeyPrefix}${OTHER}#~abc`, `${TABLE.callKeyPrefix}["r","c"]`, 'other#x']) {
      expect({ pk, decision: evaluate(policies.handler, update(pk, 'SET #r = :r', { '#r': 'reply' })) }).toEqual({ pk, decision: 'explicitly denied' });
      const erase = requestContext('DeleteCommand', { Key: { [TABLE.partitionKey]: pk } });
      expect({ pk, decision: evaluate(policies.handler, erase) }).toEqual({ pk, decision: 'explicitly denied' });
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
    expect(evaluate(broad, { action: 'dynamodb:Query', resource: `index/${TABLE.ownerIndex}`, leadingKeys: [OTHER], attributes: [] })).toBe(
      'explicitly denied',
    );
    expect(evaluate(broad, update(`${TABLE.callKeyPrefix}${OTHER}#x`, 'SET #r = :r', { '#r': 'reply' }))).toBe('explicitly denied');
  });
});

describe('attacks with the other roles', () => {
  test("3. an approver cannot touch a claim: it has no table access at all, only the API's URL", () => {
    expect(policies.approver).toEqual([]);
    const clearClaim = update(`${TABLE.approvalKeyPrefix}${OWNER}#apr_1`, 'REMOVE #c', { '#c': 'claimedUntil' });
    expect(evaluate(policies.approver, clearClaim)).toBe('denied by default');
  });

  test("the API's role may write the decision only: not a claim, a completion, tool, owner, args by themselves", () => {
    const key = `${TABLE.approvalKeyPrefix}${OWNER}#apr_1`;
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
    expect(evaluate(policies.engine, get(`${TABLE.approvalKeyPrefix}${OWNER}#x`))).toBe('allowed');
    expect(evaluate(policies.engine, get(`${TABLE.approvalKeyPrefix}${OTHER}#x`))).toBe('denied by default');
    expect(evaluate(policies.engine, get(`${TABLE.approvalKeyPrefix}x`))).toBe('denied by default');
    expect(evaluate(policies.engine, get(`${TABLE.callKeyPrefix}${OWNER}#["r","c"]`))).toBe('denied by default');
    expect(evaluate(policies.engine, { action: 'dynamodb:Scan', resource: 'table', leadingKeys: [], attributes: [] })).toBe('denied by default');
  });
});

describe("attacks on a waiting flow's task token (a credential that completes the flow)", () => {
  const flowItem = `${TABLE.callKeyPrefix}${OWNER}#flow#apr_flow`;
  const read = (pk: string) => requestContext('GetCommand', { Key: { [TABLE.partitionKey]: pk }, ConsistentRead: true });

  test("only the owner's handler and expirer reach its flow items: the engine, the API (and so the inbox's decisions), approvers and readers cannot read a kept token", () => {
    for (const who of ['engine', 'api', 'approver', 'reader'] as const) {
      expect({ who, decision: evaluate(policies[who], read(flowItem)) }).toEqual({ who, decision: expect.not.stringMatching(/^allowed$/) });
      for (const request of requests.flow) {
        expect({ who, decision: evaluate(policies[who], request) }).toEqual({ who, decision: expect.not.stringMatching(/^allowed$/) });
      }
    }
  });

  test("another owner's handler and expirer cannot take or overwrite a kept token", () => {
    const theirFlows = theirs.flow;
    expect(theirFlows.length).toBe(requests.flow.length);
    for (const who of ['handler', 'expirer'] as const) {
      for (const request of theirFlows) {
        expect({ who, decision: evaluate(policies[who], request) }).toEqual({ who, decision: expect.not.stringMatching(/^allowed$/) });
      }
      const overwrite = update(`${TABLE.callKeyPrefix}${OTHER}#flow#apr_flow`, 'SET #r = :r', { '#r': 'replyTo' });
      expect(evaluate(policies[who], overwrite)).not.toBe('allowed');
    }
  });

  test('a kept token is read back only by the write that takes it: the expirer cannot read a flow item outright', () => {
    expect(evaluate(policies.expirer, read(flowItem))).not.toBe('allowed');
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

describe("invoking the approvals functions (the tags the construct puts on them, the handler role's Denies, the security guide's SCP)", () => {
  const functions = {
    'its API': tools.approvalsApi,
    "another owner's API": other.approvalsApi,
    'its engine': tools.approvalsEngine,
    "another owner's engine": other.approvalsEngine,
    'its expirer': expirerOf(tools),
    "another owner's expirer": expirerOf(other),
    'its handler': tools.lambdaFunction,
    "another owner's handler": other.lambdaFunction,
  };
  type Target = keyof typeof functions;

  /** What IAM sees of the function: its ARN (as the statements name it) and its tags, from the template. */
  function target(name: Target): { arn: string; tags: Record<string, string> } {
    const fn = functions[name];
    const id = stack.getLogicalId(fn.node.defaultChild as CfnElement);
    const tags = Object.fromEntries((template.toJSON().Resources[id].Properties.Tags ?? []).map((t: { Key: string; Value: string }) => [t.Key, t.Value]));
    return { arn: JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }), tags };
  }

  const everywhere = [
    { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: '*' },
    { Effect: 'Allow', Action: 'lambda:*', Resource: '*' },
  ];
  const handlerWithBroadInvoke = [...roleStatements(tools.lambdaFunction.role!), ...everywhere];

  /** Every role the construct makes for owner A, and the role's tags (what `aws:PrincipalTag` reads). */
  const rolesOfA: Record<string, iam.IRole> = {
    handler: tools.lambdaFunction.role!,
    engine: tools.approvalsEngine.role!,
    API: tools.approvalsApi.role!,
    expirer: expirerOf(tools).role!,
    'expiry schedule': tools.node.findChild('Expiry').node.findChild('Role') as iam.IRole,
    'resume pipe (every owner of the table)': tools.node.findChild('ApprovalsTableToolHandlerResume').node.findChild('Role') as iam.IRole,
  };
  function roleTags(role: iam.IRole): Record<string, string> {
    const id = stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
    return Object.fromEntries((template.toJSON().Resources[id].Properties.Tags ?? []).map((t: { Key: string; Value: string }) => [t.Key, t.Value]));
  }

  test.each(Object.keys(rolesOfA))(
    "A's %s role, even given lambda:* on *, cannot invoke B's handler (run B's tools under B's role, resume B's approvals, read its kept replies), nor any other function of B",
    (name) => {
      const statements = [...roleStatements(rolesOfA[name]), ...everywhere];
      for (const victim of ["another owner's handler", "another owner's engine", "another owner's API", "another owner's expirer"] as const) {
        const { arn, tags } = target(victim);
        for (const through of ['direct', 'url'] as const) {
          expect({ victim, through, decision: evaluateInvoke(statements, invokeChecks(arn, tags, through)) }).toEqual({
            victim,
            through,
            decision: 'explicitly denied',
          });
        }
      }
    },
  );

  test("handler functions carry what the walls match: tool-handler and their owner", () => {
    expect(target('its handler').tags).toEqual({ 'cdk-tool-handler:function': 'tool-handler', 'cdk-tool-handler:owner': OWNER });
    expect(target("another owner's handler").tags).toEqual({ 'cdk-tool-handler:function': 'tool-handler', 'cdk-tool-handler:owner': OTHER });
  });

  test('the package functions carry what the Denies match: their part and their owner', () => {
    expect(target('its API').tags).toMatchObject({ 'cdk-tool-handler:function': 'approvals-api', 'cdk-tool-handler:owner': OWNER });
    expect(target("another owner's engine").tags).toMatchObject({ 'cdk-tool-handler:function': 'approvals-engine', 'cdk-tool-handler:owner': OTHER });
    expect(target('its expirer').tags).toMatchObject({ 'cdk-tool-handler:function': 'approvals-expirer' });
  });

  test.each<[Target, 'direct' | 'url']>([
    ['its API', 'direct'],
    ['its API', 'url'],
    ["another owner's API", 'direct'],
    ["another owner's API", 'url'],
    ["another owner's engine", 'direct'],
    ['its expirer', 'direct'],
    ["another owner's expirer", 'direct'],
  ])('the handler role, even given lambda:InvokeFunction and lambda:* on *, cannot invoke %s (%s)', (name, through) => {
    const { arn, tags } = target(name);
    expect(evaluateInvoke(handlerWithBroadInvoke, invokeChecks(arn, tags, through))).toBe('explicitly denied');
  });

  test('the handler role still invokes its own engine, directly', () => {
    const { arn, tags } = target('its engine');
    expect(evaluateInvoke(roleStatements(tools.lambdaFunction.role!), invokeChecks(arn, tags, 'direct'))).toBe('allowed');
    expect(evaluateInvoke(handlerWithBroadInvoke, invokeChecks(arn, tags, 'direct'))).toBe('allowed');
  });

  test('an approver (grantApprove) reaches its API through the URL only, and no other function', () => {
    const statements = roleStatements(approver);
    const api = target('its API');
    expect(evaluateInvoke(statements, invokeChecks(api.arn, api.tags, 'url'))).toBe('allowed');
    expect(evaluateInvoke(statements, invokeChecks(api.arn, api.tags, 'direct'))).toBe('denied by default');
    for (const name of ["another owner's API", 'its engine'] as const) {
      const { arn, tags } = target(name);
      expect(evaluateInvoke(statements, invokeChecks(arn, tags, 'url'))).not.toBe('allowed');
    }
  });

  function guideScp(): any[] {
    const guide = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'security.md'), 'utf8');
    const block = /<!-- scp -->\s*```json\n([\s\S]*?)```/.exec(guide);
    expect(block).not.toBeNull();
    const scp = JSON.parse(block![1]);
    return ([] as any[]).concat(scp.Statement ?? scp);
  }

  test("the security guide's SCP: a role of owner A, even stripped of the construct's Denies and given lambda:*, invokes no function of owner B", () => {
    const tags = roleTags(rolesOfA.handler);
    expect(tags['cdk-tool-handler:owner']).toBe(OWNER);
    const stripped = [...everywhere, ...guideScp()];
    for (const name of ["another owner's handler", "another owner's engine", "another owner's API"] as const) {
      const { arn, tags: fnTags } = target(name);
      expect(evaluateInvoke(stripped, invokeChecks(arn, fnTags, 'direct', tags))).toBe('explicitly denied');
    }
    // Its own owner's handler and engine stay reachable under the SCP.
    for (const name of ['its handler', 'its engine'] as const) {
      const { arn, tags: fnTags } = target(name);
      expect(evaluateInvoke(stripped, invokeChecks(arn, fnTags, 'direct', tags))).toBe('allowed');
    }
  });

  test("the security guide's SCP: an administrator with lambda:* invokes no approvals API directly, and still can through its URL", () => {
    const admin = [...everywhere, ...guideScp()];
    for (const name of ['its API', "another owner's API"] as const) {
      const { arn, tags } = target(name);
      expect(evaluateInvoke(admin, invokeChecks(arn, tags, 'direct'))).toBe('explicitly denied');
      expect(evaluateInvoke(admin, invokeChecks(arn, tags, 'url'))).toBe('allowed');
    }
    const engine = target('its engine');
    expect(evaluateInvoke(admin, invokeChecks(engine.arn, engine.tags, 'direct'))).toBe('allowed');
    // An administrator carries no owner tag: every handler stays reachable for operations.
    const handler = target("another owner's handler");
    expect(evaluateInvoke(admin, invokeChecks(handler.arn, handler.tags, 'direct'))).toBe('allowed');
  });
});

import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { APPROVAL_ATTRIBUTES, CALL_ATTRIBUTES, DECISION_ATTRIBUTES, FLOW_ATTRIBUTES, TABLE } from '../../lambda/construct-contract';
import { ToolHandler } from '../../lib';
import { CALL_ITEM_ATTRIBUTES, DECIDE_ATTRIBUTE_NAMES } from '../../lib/permissions';
import { actionsOf, onlyResource, statementsOfRole, toolStack, unbundledApp, handlerResource, withApprovalIndexes } from './helpers';

/** Least privilege, read off the synthesized policies. All stacks are synthesized once. */
const app = unbundledApp();

function withGrantees(id: string, key?: boolean, table?: (stack: Stack) => dynamodb.ITable) {
  const built = toolStack(app, id, {}, (stack) => ({
    ...(key ? { encryptionKey: new kms.Key(stack, 'Key') } : {}),
    ...(table ? { approvalsTable: table(stack) } : {}),
  }));
  const role = (name: string) => new iam.Role(built.stack, name, { assumedBy: new iam.AccountRootPrincipal() });
  const grantees = { sender: role('Sender'), invoker: role('Invoker'), approver: role('Approver'), reader: role('Reader') };
  built.tools.grantSendToolCalls(grantees.sender);
  built.tools.grantInvoke(grantees.invoker);
  built.tools.grantApprove(grantees.approver);
  built.tools.grantReadApprovals(grantees.reader);
  built.tools.grantInvoke(new iam.ServicePrincipal('apigateway.amazonaws.com'));
  return { ...built, grantees };
}

const plain = withGrantees('Plain');
const keyed = withGrantees('Keyed', true);
// A given (imported) table, encrypted with the given key, which the table object does not carry.
const givenKeyed = withGrantees('GivenKeyed', true, (stack) => dynamodb.Table.fromTableAttributes(stack, 'Approvals', { tableName: 'approvals', tableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/approvals/stream/2030-01-01T00:00:00.000' }));
// A given table that carries its own key, next to another `encryptionKey` (for the queues).
const ownKey = withGrantees('OwnKey', true, (stack) =>
  withApprovalIndexes(
    new dynamodb.Table(stack, 'Approvals', {
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: TABLE.ttlAttribute,
      encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: new kms.Key(stack, 'TableKey'),
    }),
  ),
);
const t = Template.fromStack(plain.stack);
const tk = Template.fromStack(keyed.stack);
const tg = Template.fromStack(givenKeyed.stack);
const to = Template.fromStack(ownKey.stack);

const byPrefix = (template: Template, type: string, prefix: string) => {
  const found = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (found.length !== 1) throw new Error(`expected one ${type} named ${prefix}*, found ${found.join(', ')}`);
  return found[0];
};
const ids = (template: Template) => ({
  engine: byPrefix(template, 'AWS::Lambda::Function', 'ToolsApprovalsEngine'),
  api: byPrefix(template, 'AWS::Lambda::Function', 'ToolsApprovalsApi'),
  engineRole: byPrefix(template, 'AWS::IAM::Role', 'ToolsApprovalsEngineRole'),
  apiRole: byPrefix(template, 'AWS::IAM::Role', 'ToolsApprovalsApiRole'),
  expirerRole: byPrefix(template, 'AWS::IAM::Role', 'ToolsApprovalsExpirerRole'),
  table: Object.keys(template.findResources('AWS::DynamoDB::Table'))[0],
  fn: handlerResource(template, 'AWS::Lambda::Function').id,
  fnRole: handlerResource(template, 'AWS::IAM::Role', { AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] } }).id,
});
const roleId = (stack: Stack, role: iam.Role) => stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
const tableArn = (template: Template) => ({ 'Fn::GetAtt': [ids(template).table, 'Arn'] });
const indexArn = (template: Template, index: string) => ({ 'Fn::Join': ['', [tableArn(template), `/index/${index}`]] });
const owner = plain.tools.owner;
const onlyApprovals = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`approval#${owner}#*`] } };
const onlyOwnerPartition = { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [owner] } };
const bothIndexes = (template: Template) => [indexArn(template, 'pendingByOwner'), indexArn(template, 'approvalsByOwner')];
const dynamoOf = (statements: any[]) => statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
const kmsOf = (statements: any[]) => statements.filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));

describe("the function's policy", () => {
  const statements = () => statementsOfRole(t, ids(t).fnRole);
  const allowed = () => statements().filter((s) => s.Effect === 'Allow');

  test('allows no wildcard action and no wildcard resource', () => {
    for (const s of allowed()) {
      for (const action of actionsOf(s)) expect(action).not.toContain('*');
      expect(JSON.stringify(s.Resource)).not.toBe('"*"');
    }
  });

  test("allows UpdateItem and DeleteItem of its owner's call items only, naming call-item attributes only", () => {
    expect(allowed().filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')))).toEqual([
      {
        Sid: 'ToolHandlerWritesItsCallItems',
        Effect: 'Allow',
        Action: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
        Resource: tableArn(t),
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`call#${owner}#*`] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': CALL_ITEM_ATTRIBUTES },
        },
      },
    ]);
    // The key, the expiry and TTL attributes, and the call item's and the flow item's own
    // (lambda/construct-contract.ts CALL_ATTRIBUTES, FLOW_ATTRIBUTES), nothing else.
    expect([...CALL_ITEM_ATTRIBUTES].sort()).toEqual(
      [...new Set(['pk', 'expiresAt', 'deleteAt', ...Object.values(CALL_ATTRIBUTES), ...Object.values(FLOW_ATTRIBUTES)])].sort(),
    );
    expect(CALL_ITEM_ATTRIBUTES).toEqual(expect.arrayContaining(['pk', 'kind', 'state', 'leaseToken', 'leaseUntil', 'heldUntil', 'reply']));
    // Never an approval's attribute, nor an index key: a call item naming one would put a kept reply into an
    // index that readers query, or look like an approval.
    const approvalOnly = [...Object.values(APPROVAL_ATTRIBUTES), ...Object.values(DECISION_ATTRIBUTES)].filter(
      (name) => !['kind', 'fingerprint'].includes(name),
    );
    expect(approvalOnly).toEqual(expect.arrayContaining(['approvalId', 'owner', 'pendingOwner', 'createdAt', 'decision']));
    for (const name of approvalOnly) expect(CALL_ITEM_ATTRIBUTES).not.toContain(name);
  });

  test("is denied everything else on the table, its indexes and its stream, and every request outside its owner's call items", () => {
    const denies = statements().filter((s) => s.Effect === 'Deny');
    expect(denies.map((s) => s.Sid).sort()).toEqual([
      'CdkToolHandlerNoOtherOwnersFunctions',
      'CdkToolHandlerNoOtherOwnersReplies',
      'ToolHandlerNeverApprovalsApisNorExpirers',
      'ToolHandlerNoIndexesNorStream',
      'ToolHandlerNothingElseOnTheTable',
      'ToolHandlerOnlyCallAttributes',
      'ToolHandlerOnlyItsOwnCallItems',
    ]);
    expect(denies).toContainEqual({
      Sid: 'ToolHandlerOnlyItsOwnCallItems',
      Effect: 'Deny',
      Action: 'dynamodb:*',
      Resource: tableArn(t),
      // Any leading key not of its owner's calls: approval items, and every other owner's calls.
      Condition: { 'ForAnyValue:StringNotLike': { 'dynamodb:LeadingKeys': [`call#${owner}#*`] } },
    });
    expect(denies).toContainEqual({
      Sid: 'ToolHandlerNothingElseOnTheTable',
      Effect: 'Deny',
      NotAction: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      Resource: tableArn(t),
    });
    expect(denies).toContainEqual({
      Sid: 'ToolHandlerNoIndexesNorStream',
      Effect: 'Deny',
      Action: 'dynamodb:*',
      Resource: [
        { 'Fn::Join': ['', [tableArn(t), '/index/*']] },
        { 'Fn::Join': ['', [tableArn(t), '/stream/*']] },
      ],
    });
    expect(denies).toContainEqual({
      Sid: 'ToolHandlerOnlyCallAttributes',
      Effect: 'Deny',
      Action: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      Resource: tableArn(t),
      Condition: { 'ForAnyValue:StringNotEquals': { 'dynamodb:Attributes': CALL_ITEM_ATTRIBUTES } },
    });
  });

  test('is denied invoking any approvals API or expirer (any owner, directly or through a URL), by resource tag', () => {
    expect(statements()).toContainEqual({
      Sid: 'ToolHandlerNeverApprovalsApisNorExpirers',
      Effect: 'Deny',
      Action: ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl', 'lambda:InvokeAsync'],
      Resource: '*',
      Condition: { StringEquals: { 'aws:ResourceTag/cdk-tool-handler:function': ['approvals-api', 'approvals-expirer'] } },
    });
  });

  test("is denied invoking another owner's functions (its handler, engine, API, expirer), by resource tag", () => {
    expect(statements()).toContainEqual({
      Sid: 'CdkToolHandlerNoOtherOwnersFunctions',
      Effect: 'Deny',
      Action: ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl', 'lambda:InvokeAsync'],
      Resource: '*',
      Condition: {
        Null: { 'aws:ResourceTag/cdk-tool-handler:function': 'false' },
        StringNotEquals: { 'aws:ResourceTag/cdk-tool-handler:owner': owner },
      },
    });
  });

  test('the tags those Denies read are on the functions: its own engine passes, its API and expirer do not', () => {
    const tagsOf = (id: string) =>
      Object.fromEntries(t.toJSON().Resources[id].Properties.Tags.map((tag: any) => [tag.Key, tag.Value]));
    expect(tagsOf(ids(t).engine)).toEqual({ 'cdk-tool-handler:function': 'approvals-engine', 'cdk-tool-handler:owner': owner });
    expect(tagsOf(ids(t).api)['cdk-tool-handler:function']).toBe('approvals-api');
    const expirer = byPrefix(t, 'AWS::Lambda::Function', 'ToolsApprovalsExpirer');
    expect(tagsOf(expirer)['cdk-tool-handler:function']).toBe('approvals-expirer');
  });

  test('may invoke the approvals engine, and no other function (not the approvals API)', () => {
    const invokes = allowed().filter((s) => actionsOf(s).some((a) => a.startsWith('lambda:')));
    expect(invokes).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [ids(t).engine, 'Arn'] } }]);
  });

  test('otherwise only writes its logs, consumes its queue and sends to the event dead-letter queue', () => {
    const rest = allowed().filter((s) => !actionsOf(s).some((a) => a.startsWith('dynamodb:') || a.startsWith('lambda:')));
    expect(rest.map(actionsOf).flat().sort()).toEqual([
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
  });

  test('with a key, may use that key and no other', () => {
    const kmsStatements = statementsOfRole(tk, ids(tk).fnRole).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
    const keyId = onlyResource(tk, 'AWS::KMS::Key').id;
    expect(kmsStatements.length).toBeGreaterThan(0);
    for (const s of kmsStatements) expect(s.Resource).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });
});

describe('grantApprove', () => {
  const apiArn = () => ({ 'Fn::GetAtt': [ids(t).api, 'Arn'] });

  test('the URL only: InvokeFunctionUrl with AWS_IAM auth, and InvokeFunction only when invoked via the URL; no table access', () => {
    expect(statementsOfRole(t, roleId(plain.stack, plain.grantees.approver))).toEqual([
      {
        Effect: 'Allow',
        Action: 'lambda:InvokeFunctionUrl',
        Resource: apiArn(),
        Condition: { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } },
      },
      {
        Effect: 'Allow',
        Action: 'lambda:InvokeFunction',
        Resource: apiArn(),
        Condition: { Bool: { 'lambda:InvokedViaFunctionUrl': true } },
      },
    ]);
  });

  test('every grant the construct makes on the API carries the URL-only conditions (no direct invoke with a made-up identity)', () => {
    for (const template of [t, tk, tg, to]) {
      const api = ids(template).api;
      const onApi = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p: any) =>
        p.Properties.PolicyDocument.Statement.filter((s: any) => JSON.stringify(s.Resource).includes(api)),
      );
      expect(onApi.length).toBeGreaterThan(0);
      for (const statement of onApi) {
        expect(statement.Condition).toEqual(
          actionsOf(statement).includes('lambda:InvokeFunction')
            ? { Bool: { 'lambda:InvokedViaFunctionUrl': true } }
            : { StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' } },
        );
      }
      const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).filter((p: any) =>
        JSON.stringify(p.Properties.FunctionName).includes(api),
      );
      expect(permissions).toEqual([]);
    }
  });

  test('the API has a function URL with AWS_IAM auth, and its URL is a stack output ending in ApprovalsApiUrl', () => {
    t.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'AWS_IAM', TargetFunctionArn: { 'Fn::GetAtt': [ids(t).api, 'Arn'] } });
    const outputs = Object.keys(t.findOutputs('*')).filter((id) => id.endsWith('ApprovalsApiUrl'));
    expect(outputs).toHaveLength(1);
  });
});

describe('the approvals functions: their owner only', () => {
  test("the engine: GetItem and UpdateItem of its owner's approval items, nothing else on the table", () => {
    expect(dynamoOf(statementsOfRole(t, ids(t).engineRole))).toEqual([
      {
        Sid: 'ApprovalsEngineItsApprovalItems',
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: tableArn(t),
        Condition: onlyApprovals,
      },
    ]);
  });

  test("the API: GetItem of its owner's approvals, Query of its owner's partition of both indexes, decide naming only the decision attributes", () => {
    expect(dynamoOf(statementsOfRole(t, ids(t).apiRole))).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: tableArn(t), Condition: onlyApprovals },
      { Effect: 'Allow', Action: 'dynamodb:Query', Resource: bothIndexes(t), Condition: onlyOwnerPartition },
      {
        Sid: 'ApprovalsApiDecides',
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: tableArn(t),
        Condition: { ...onlyApprovals, 'ForAllValues:StringEquals': { 'dynamodb:Attributes': DECIDE_ATTRIBUTE_NAMES } },
      },
    ]);
    expect([...DECIDE_ATTRIBUTE_NAMES].sort()).toEqual([
      'args', 'decidedAt', 'decidedBy', 'decidedFingerprint', 'decision', 'expiredAt', 'expiresAt', 'pendingOwner', 'pk', 'reason', 'tool',
    ]);
  });

  test('nothing the construct makes or grants may Scan, or reach an approval or call key of any owner but its own', () => {
    for (const template of [t, tk, tg, to]) {
      const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p: any) => p.Properties.PolicyDocument.Statement);
      const allowed = dynamoOf(statements).filter((s) => s.Effect === 'Allow');
      expect(allowed.flatMap(actionsOf)).not.toContain('dynamodb:Scan');
      for (const s of allowed) {
        const itemActions = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'];
        if (actionsOf(s).some((a) => itemActions.includes(a) || a.includes('*'))) {
          const keys: string[] = s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'];
          expect(keys).toHaveLength(1);
          expect(keys[0]).toMatch(/^(approval|call)#[A-Za-z0-9_.-]{1,64}#(flow#)?\*$/);
        }
        if (actionsOf(s).includes('dynamodb:Query')) expect(s.Condition).toEqual({ 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [expect.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/)] } });
      }
    }
  });
});

describe('grantReadApprovals', () => {
  test("GetItem of its owner's approval items and Query of its owner's partition of both indexes, nothing else (no Scan)", () => {
    expect(statementsOfRole(t, roleId(plain.stack, plain.grantees.reader))).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: tableArn(t), Condition: onlyApprovals },
      { Effect: 'Allow', Action: 'dynamodb:Query', Resource: bothIndexes(t), Condition: onlyOwnerPartition },
    ]);
  });

  test('with a key, decrypt only', () => {
    const actions = statementsOfRole(tk, roleId(keyed.stack, keyed.grantees.reader)).flatMap(actionsOf);
    expect(actions.filter((a) => a.startsWith('kms:'))).toEqual(['kms:Decrypt']);
  });
});

describe('a given table with encryptionKey', () => {
  const keyArn = (template: Template, props?: object) => ({ 'Fn::GetAtt': [onlyResource(template, 'AWS::KMS::Key', props).id, 'Arn'] });
  const fnRoleOf = (template: Template) =>
    handlerResource(template, 'AWS::IAM::Role', { AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] } }).id;
  const kmsActionsOn = (statements: any[], key: object) =>
    kmsOf(statements).filter((s) => JSON.stringify(s.Resource) === JSON.stringify(key)).flatMap(actionsOf).sort();
  const encryptDecrypt = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'];

  // (The function already had these through the event dead-letter queue, which the key encrypts too;
  // the table's grant is now explicit.)
  test('an imported table: the function may encrypt and decrypt with the key', () => {
    expect(kmsActionsOn(statementsOfRole(tg, fnRoleOf(tg)), keyArn(tg))).toEqual(expect.arrayContaining(encryptDecrypt));
  });

  test('an imported table: the engine, the API and the expirer may encrypt and decrypt with the key', () => {
    for (const role of [ids(tg).engineRole, ids(tg).apiRole, ids(tg).expirerRole]) {
      expect(kmsActionsOn(statementsOfRole(tg, role), keyArn(tg))).toEqual(encryptDecrypt);
    }
  });

  test('an imported table: grantReadApprovals may decrypt with the key, only', () => {
    const statements = statementsOfRole(tg, roleId(givenKeyed.stack, givenKeyed.grantees.reader));
    expect(kmsOf(statements)).toEqual([{ Effect: 'Allow', Action: 'kms:Decrypt', Resource: keyArn(tg) }]);
  });

  test("a table that carries its own key: the grants use the table's key, not encryptionKey", () => {
    const tableKeyId = ownKey.stack.getLogicalId(ownKey.stack.node.findChild('TableKey').node.defaultChild as kms.CfnKey);
    const approver = kmsOf(statementsOfRole(to, ids(to).apiRole));
    const reader = kmsOf(statementsOfRole(to, roleId(ownKey.stack, ownKey.grantees.reader)));
    for (const s of [...approver, ...reader]) expect(s.Resource).toEqual({ 'Fn::GetAtt': [tableKeyId, 'Arn'] });
    expect(approver.length).toBeGreaterThan(0);
    expect(reader.length).toBeGreaterThan(0);
    expect(kmsActionsOn(statementsOfRole(to, fnRoleOf(to)), { 'Fn::GetAtt': [tableKeyId, 'Arn'] })).toEqual(
      expect.arrayContaining(encryptDecrypt),
    );
  });
});

describe('grantSendToolCalls', () => {
  test('sends to the queue', () => {
    const queueId = (plain.tools.queue.node.defaultChild as any).logicalId;
    const statements = statementsOfRole(t, roleId(plain.stack, plain.grantees.sender));
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        Resource: { 'Fn::GetAtt': [plain.stack.resolve(queueId), 'Arn'] },
      },
    ]);
  });

  test('with a key, may encrypt with it', () => {
    const actions = statementsOfRole(tk, roleId(keyed.stack, keyed.grantees.sender)).flatMap(actionsOf);
    expect(actions).toEqual(expect.arrayContaining(['kms:Encrypt', 'kms:GenerateDataKey*']));
  });
});

describe('grantInvoke', () => {
  test('invokes the function itself, not its versions or aliases', () => {
    expect(statementsOfRole(t, roleId(plain.stack, plain.grantees.invoker))).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [ids(t).fn, 'Arn'] } },
    ]);
  });

  test('a service principal gets a Lambda permission instead', () => {
    t.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [ids(t).fn, 'Arn'] },
    });
  });
});

test('grants return the Grant', () => {
  const { tools } = toolStack(unbundledApp(), 'Other');
  const role = new iam.Role(tools, 'R', { assumedBy: new iam.AccountRootPrincipal() });
  for (const grant of [tools.grantApprove(role), tools.grantReadApprovals(role), tools.grantSendToolCalls(role), tools.grantInvoke(role)]) {
    expect(grant.success).toBe(true);
  }
  expect(ToolHandler).toBeDefined();
});

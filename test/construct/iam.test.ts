import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { APPROVAL_ATTRIBUTES, DECISION_ATTRIBUTES, TABLE } from '../../lambda/names';
import { ToolHandler } from '../../lib';
import { actionsOf, onlyResource, statementsOfRole, toolStack, unbundledApp } from './helpers';

/** Least privilege (§8), read off the synthesized policies. All stacks are synthesized once. */
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
  built.tools.grantDecide(grantees.approver);
  built.tools.grantReadApprovals(grantees.reader);
  built.tools.grantInvoke(new iam.ServicePrincipal('apigateway.amazonaws.com'));
  return { ...built, grantees };
}

const plain = withGrantees('Plain');
const keyed = withGrantees('Keyed', true);
// A given (imported) table, encrypted with the given key, which the table object does not carry.
const givenKeyed = withGrantees('GivenKeyed', true, (stack) => dynamodb.Table.fromTableName(stack, 'Approvals', 'approvals'));
// A given table that carries its own key, next to another `encryptionKey` (for the queues).
const ownKey = withGrantees('OwnKey', true, (stack) =>
  new dynamodb.Table(stack, 'Approvals', {
    partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    timeToLiveAttribute: TABLE.ttlAttribute,
    encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: new kms.Key(stack, 'TableKey'),
  }),
);
const t = Template.fromStack(plain.stack);
const tk = Template.fromStack(keyed.stack);
const tg = Template.fromStack(givenKeyed.stack);
const to = Template.fromStack(ownKey.stack);

const ids = (template: Template) => ({
  table: onlyResource(template, 'AWS::DynamoDB::Table').id,
  fn: onlyResource(template, 'AWS::Lambda::Function').id,
  fnRole: onlyResource(template, 'AWS::IAM::Role', { AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] } }).id,
});
const roleId = (stack: Stack, role: iam.Role) => stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
const tableArn = (template: Template) => ({ 'Fn::GetAtt': [ids(template).table, 'Arn'] });
const approvalsIndexArn = (template: Template) => ({ 'Fn::Join': ['', [tableArn(template), `/index/${TABLE.approvalsIndex}`]] });
const decisions = Object.values(DECISION_ATTRIBUTES);
const onlyApprovals = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TABLE.approvalKeyPrefix}*`] } };
const kmsOf = (statements: any[]) => statements.filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));

describe("the function's policy", () => {
  const statements = () => statementsOfRole(t, ids(t).fnRole);
  const allowed = () => statements().filter((s) => s.Effect === 'Allow');

  test('has no wildcard action and no wildcard resource', () => {
    for (const s of statements()) {
      for (const action of actionsOf(s)) expect(action).not.toContain('*');
      expect(JSON.stringify(s.Resource)).not.toBe('"*"');
    }
  });

  test('allows no Scan, Query, PutItem, batch or transaction on the table', () => {
    const dynamo = allowed().flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo.sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  test('reads only approval items (the store never reads a call item with GetItem)', () => {
    expect(allowed().filter((s) => actionsOf(s).includes('dynamodb:GetItem'))).toEqual([
      { Sid: 'ToolHandlerGetApprovals', Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: tableArn(t), Condition: onlyApprovals },
    ]);
  });

  test('updates only approval and call items', () => {
    expect(allowed()).toContainEqual({
      Sid: 'ToolHandlerUpdateItems',
      Effect: 'Allow',
      Action: 'dynamodb:UpdateItem',
      Resource: tableArn(t),
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TABLE.approvalKeyPrefix}*`, `${TABLE.callKeyPrefix}*`] } },
    });
  });

  test('deletes only call records', () => {
    expect(allowed()).toContainEqual({
      Sid: 'ToolHandlerDeleteCallRecords',
      Effect: 'Allow',
      Action: 'dynamodb:DeleteItem',
      Resource: tableArn(t),
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TABLE.callKeyPrefix}*`] } },
    });
  });

  test('is denied any write that names a decision attribute', () => {
    expect(statements()).toContainEqual({
      Sid: 'ToolHandlerNeverWritesDecisions',
      Effect: 'Deny',
      Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'],
      Resource: tableArn(t),
      Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': decisions } },
    });
    expect([...decisions].sort()).toEqual(['decidedAt', 'decidedBy', 'decidedFingerprint', 'decision', 'reason']);
  });

  test('is denied PartiQL writes on the table', () => {
    expect(statements()).toContainEqual({
      Sid: 'ToolHandlerNoPartiQLWrites',
      Effect: 'Deny',
      Action: ['dynamodb:PartiQLInsert', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'],
      Resource: tableArn(t),
    });
  });

  test('otherwise only writes its logs, consumes its queue and sends to the event dead-letter queue', () => {
    const rest = allowed().filter((s) => !actionsOf(s).some((a) => a.startsWith('dynamodb:')));
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

describe('grantDecide', () => {
  const statements = () => statementsOfRole(t, roleId(plain.stack, plain.grantees.approver));

  test('gets approval items, scans, and updates approval items naming only the decision attributes and what decide tests', () => {
    expect(statements()).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: tableArn(t), Condition: onlyApprovals },
      { Effect: 'Allow', Action: 'dynamodb:Scan', Resource: approvalsIndexArn(t) },
      {
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: tableArn(t),
        Condition: {
          'ForAllValues:StringEquals': {
            'dynamodb:Attributes': [
              TABLE.partitionKey,
              TABLE.ttlAttribute,
              APPROVAL_ATTRIBUTES.claimedUntil,
              APPROVAL_ATTRIBUTES.fingerprint,
              ...decisions,
            ],
          },
          ...onlyApprovals,
        },
      },
    ]);
  });

  test('no Query: the store never queries', () => {
    expect(statements().flatMap(actionsOf)).not.toContain('dynamodb:Query');
  });

  test('with a key, may also use it', () => {
    const actions = statementsOfRole(tk, roleId(keyed.stack, keyed.grantees.approver)).flatMap(actionsOf);
    expect(actions).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt']));
  });
});

describe('grantReadApprovals', () => {
  test('GetItem of approval items and Scan of the approvals index, nothing else (no Query, no table Scan)', () => {
    expect(statementsOfRole(t, roleId(plain.stack, plain.grantees.reader))).toEqual([
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: tableArn(t), Condition: onlyApprovals },
      { Effect: 'Allow', Action: 'dynamodb:Scan', Resource: approvalsIndexArn(t) },
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
    onlyResource(template, 'AWS::IAM::Role', { AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] } }).id;
  const kmsActionsOn = (statements: any[], key: object) =>
    kmsOf(statements).filter((s) => JSON.stringify(s.Resource) === JSON.stringify(key)).flatMap(actionsOf).sort();
  const encryptDecrypt = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'];

  // (The function already had these through the event dead-letter queue, which the key encrypts too;
  // the table's grant is now explicit.)
  test('an imported table: the function may encrypt and decrypt with the key', () => {
    expect(kmsActionsOn(statementsOfRole(tg, fnRoleOf(tg)), keyArn(tg))).toEqual(expect.arrayContaining(encryptDecrypt));
  });

  test('an imported table: grantDecide may encrypt and decrypt with the key', () => {
    const statements = statementsOfRole(tg, roleId(givenKeyed.stack, givenKeyed.grantees.approver));
    expect(kmsActionsOn(statements, keyArn(tg))).toEqual(encryptDecrypt);
  });

  test('an imported table: grantReadApprovals may decrypt with the key, only', () => {
    const statements = statementsOfRole(tg, roleId(givenKeyed.stack, givenKeyed.grantees.reader));
    expect(kmsOf(statements)).toEqual([{ Effect: 'Allow', Action: 'kms:Decrypt', Resource: keyArn(tg) }]);
  });

  test("a table that carries its own key: the grants use the table's key, not encryptionKey", () => {
    const tableKeyId = ownKey.stack.getLogicalId(ownKey.stack.node.findChild('TableKey').node.defaultChild as kms.CfnKey);
    const approver = kmsOf(statementsOfRole(to, roleId(ownKey.stack, ownKey.grantees.approver)));
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
  for (const grant of [tools.grantDecide(role), tools.grantReadApprovals(role), tools.grantSendToolCalls(role), tools.grantInvoke(role)]) {
    expect(grant.success).toBe(true);
  }
  expect(ToolHandler).toBeDefined();
});

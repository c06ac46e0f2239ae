import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { callFingerprint } from '../../lambda/ids';
import { TABLE } from '../../lambda/names';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { decisionFilter, RESUME_INPUT_TEMPLATE } from '../../lib/auto-resume';
import { createTestTable } from '../support/dynamo';
import { matchesPattern, renderInputTemplate } from '../support/event-pattern';
import { actionsOf, handlerResource, onlyResource, statementsOfRole, toolStack, unbundledApp } from './helpers';

/** §10 in the template: the resume pipe, the expiry schedule, notifications, who may publish replies. */

const plain = toolStack(unbundledApp(), 'Plain');
const t = Template.fromStack(plain.stack);
const fifo = Template.fromStack(toolStack(unbundledApp(), 'Fifo', { fifo: true }).stack);
const notified = toolStack(unbundledApp(), 'Notified', {}, (stack) => ({
  replyBus: new events.EventBus(stack, 'Replies'),
  approvalNotifications: new sns.Topic(stack, 'Approvers'),
  notifyWithArgs: true,
}));
const tn = Template.fromStack(notified.stack);
const tableId = onlyResource(t, 'AWS::DynamoDB::Table').id;

describe('auto-resume', () => {
  test('the created table streams new and old images', () => {
    t.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  test('a pipe from the stream (TRIM_HORIZON, a dead-letter queue) to the tool queue, keeping only decisions, sending the resume envelope', () => {
    const { resource } = onlyResource(t, 'AWS::Pipes::Pipe');
    const p = resource.Properties;
    expect(p.Source).toEqual({ 'Fn::GetAtt': [tableId, 'StreamArn'] });
    expect(p.Target).toEqual({ 'Fn::GetAtt': [plain.stack.getLogicalId(plain.tools.queue.node.defaultChild as any), 'Arn'] });
    expect(p.SourceParameters.DynamoDBStreamParameters.StartingPosition).toBe('TRIM_HORIZON');
    expect(p.SourceParameters.DynamoDBStreamParameters.DeadLetterConfig.Arn['Fn::GetAtt'][0]).toMatch(/^ToolsAutoResumeDeadLetterQueue/);
    expect(p.SourceParameters.FilterCriteria.Filters.map((f: any) => JSON.parse(f.Pattern))).toEqual([
      {
        eventName: ['MODIFY'],
        dynamodb: {
          Keys: { pk: { S: [{ prefix: 'approval#' }] } },
          OldImage: { decision: { S: [{ exists: false }] } },
          NewImage: { decision: { S: [{ exists: true }] } },
        },
      },
    ]);
    expect(p.TargetParameters).toEqual({ InputTemplate: '{"approval_id": "<$.dynamodb.NewImage.approvalId.S>"}' });
  });

  test("the pipe's dead-letter queue is a standard queue, also for a FIFO tool queue, which gets group and deduplication ids", () => {
    const p = onlyResource(fifo, 'AWS::Pipes::Pipe').resource.Properties;
    expect(p.TargetParameters.SqsQueueParameters).toEqual({
      MessageGroupId: '$.dynamodb.NewImage.approvalId.S',
      MessageDeduplicationId: '$.dynamodb.NewImage.approvalId.S',
    });
    const dlqs = fifo.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: Match.absent() } });
    expect(Object.keys(dlqs).some((id) => id.includes('AutoResumeDeadLetterQueue'))).toBe(true);
  });

  test("the pipe's role reads that stream and sends to that queue and its dead-letter queue, nothing else", () => {
    const roleId = Object.keys(t.findResources('AWS::IAM::Role')).find((id) => id.startsWith('ToolsAutoResumeRole'))!;
    const statements = statementsOfRole(t, roleId);
    expect(statements.find((s) => actionsOf(s).includes('dynamodb:GetRecords'))).toEqual({
      Effect: 'Allow',
      Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
      Resource: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
    });
    const others = statements.filter((s) => !actionsOf(s).includes('dynamodb:GetRecords'));
    expect(others.flatMap(actionsOf).every((a) => a.startsWith('sqs:') || a.startsWith('kms:'))).toBe(true);
    expect(others.map((s) => JSON.stringify(s.Resource)).every((r) => /Queue/.test(r))).toBe(true);
  });

  test('autoResume: false makes no pipe', () => {
    const off = Template.fromStack(toolStack(unbundledApp(), 'Off', { autoResume: false }).stack);
    off.resourceCountIs('AWS::Pipes::Pipe', 0);
  });

  test('a given table without a stream is a synth error that says what to enable', () => {
    expect(() =>
      toolStack(unbundledApp(), 'NoStream', {}, (stack) => ({
        approvalsTable: new dynamodb.Table(stack, 'T', {
          partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
          timeToLiveAttribute: TABLE.ttlAttribute,
        }),
      })),
    ).toThrow(
      'NoStream/Tools: `approvalsTable` has no stream, which `autoResume` needs: create the table with ' +
        '`stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES` (or import it with its `tableStreamArn`), or set `autoResume: false`.',
    );
  });

  test('a shared table: the filter keeps only this handler\'s approvals (its owner)', () => {
    const shared = toolStack(unbundledApp(), 'Shared', {}, (stack) => ({
      approvalsTable: new dynamodb.Table(stack, 'T', {
        partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
        stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      }),
    }));
    const pattern = JSON.parse(onlyResource(Template.fromStack(shared.stack), 'AWS::Pipes::Pipe').resource.Properties.SourceParameters.FilterCriteria.Filters[0].Pattern);
    expect(pattern.dynamodb.NewImage.owner).toEqual({ S: [shared.tools.node.addr] });
  });
});

describe('expiry', () => {
  test('an EventBridge Scheduler schedule runs the expirer every 4 minutes, with a role that may invoke only it', () => {
    const { resource } = onlyResource(t, 'AWS::Scheduler::Schedule');
    const expirerId = Object.keys(t.findResources('AWS::Lambda::Function')).find((id) => id.startsWith('ToolsApprovalsExpirer'))!;
    expect(resource.Properties).toMatchObject({ ScheduleExpression: 'rate(4 minutes)', Target: { Arn: { 'Fn::GetAtt': [expirerId, 'Arn'] } } });
    const roleId = resource.Properties.Target.RoleArn['Fn::GetAtt'][0];
    expect(statementsOfRole(t, roleId)).toEqual([{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [expirerId, 'Arn'] } }]);
  });

  test("the expirer's role scans the approvals index and writes expiredAt of approval items; approval items stay a day past expiry", () => {
    const roleId = Object.keys(t.findResources('AWS::IAM::Role')).find((id) => id.startsWith('ToolsApprovalsExpirerRole'))!;
    const dynamo = statementsOfRole(t, roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.map(actionsOf).flat().sort()).toEqual(['dynamodb:Scan', 'dynamodb:UpdateItem']);
    const update = dynamo.find((s) => actionsOf(s).includes('dynamodb:UpdateItem'))!;
    expect(update.Condition['ForAllValues:StringLike']).toEqual({ 'dynamodb:LeadingKeys': ['approval#*'] });
    t.hasResourceProperties('AWS::DynamoDB::Table', { TimeToLiveSpecification: { AttributeName: 'deleteAt', Enabled: true } });
  });
});

describe('notifications and the reply source', () => {
  test('approvalNotifications without replyBus is a synth error naming both', () => {
    expect(() =>
      toolStack(unbundledApp(), 'NoBus', {}, (stack) => ({ approvalNotifications: new sns.Topic(stack, 'Topic') })),
    ).toThrow('NoBus/Tools: `approvalNotifications` needs `replyBus`: the notifications are made from the reply bus\'s events; set both, or neither.');
  });

  test('requested and expired approvals reach the topic as a short message with the CLI line (args only with notifyWithArgs)', () => {
    const rules = Object.values(tn.findResources('AWS::Events::Rule')).filter((r: any) =>
      JSON.stringify(r.Properties.EventPattern).includes('Tool Approval'),
    ) as any[];
    expect(rules.map((r) => r.Properties.EventPattern)).toEqual([
      { source: ['cdk-tool-handler'], 'detail-type': ['Tool Approval Requested'] },
      { source: ['cdk-tool-handler'], 'detail-type': ['Tool Approval Expired'] },
    ]);
    const [requested, expired] = rules.map((r) => r.Properties.Targets[0].InputTransformer);
    expect(requested.InputTemplate).toBe(
      '"Tool <detail-tool> needs approval: approval <detail-approval_id> (run <detail-run_id>, call <detail-call_id>), until <detail-expires_at>. ' +
        'Args: <detail-args>. Approve: npx cdk-tool-handler approvals approve <detail-approval_id> --stack Notified"',
    );
    expect(expired.InputTemplate).toMatch(/was not approved in time/);
    expect(requested.InputPathsMap).toMatchObject({ 'detail-tool': '$.detail.tool', 'detail-args': '$.detail.args' });
    expect(handlerResource(tn, 'AWS::Lambda::Function').resource.Properties.Environment.Variables.TOOL_HANDLER_NOTIFY_WITH_ARGS).toBe('true');
  });

  test('only the handler and the expirer may put events on the reply bus, with source cdk-tool-handler only', () => {
    const putters = Object.values(tn.findResources('AWS::IAM::Policy')).flatMap((p: any) =>
      p.Properties.PolicyDocument.Statement.filter((s: any) => actionsOf(s).includes('events:PutEvents')).map((s: any) => ({ roles: p.Properties.Roles, s })),
    );
    expect(putters).toHaveLength(2);
    for (const { roles, s } of putters) {
      expect(s.Condition).toEqual({ StringEquals: { 'events:source': 'cdk-tool-handler' } });
      expect(roles[0].Ref).toMatch(/^Tools(ServiceRole|ApprovalsExpirerRole)/);
    }
  });
});

describe('the pipe filter and template against real-shaped stream records', () => {
  /** Every write of an approval's life on dynalite, as the stream would show it (old and new images). */
  async function lifeOf(approved: boolean): Promise<Array<{ name: string; record: object }>> {
    const { tableName, client } = await createTestTable();
    let now = Date.UTC(2030, 0, 1);
    const store = new DynamoApprovalStore({ tableName, client, now: () => now, ttlSeconds: 60 });
    const raw = async () => (await client.send(new GetCommand({ TableName: tableName, Key: { pk: 'approval#apr_1' } }))).Item;
    const records: Array<{ name: string; record: object }> = [];
    const step = async (name: string, write: () => Promise<unknown>) => {
      const old = await raw();
      await write();
      const next = await raw();
      records.push({
        name,
        record: {
          eventID: String(records.length),
          eventName: old ? 'MODIFY' : 'INSERT',
          eventSource: 'aws:dynamodb',
          awsRegion: 'us-east-1',
          dynamodb: {
            Keys: marshall({ pk: 'approval#apr_1' }),
            ...(old ? { OldImage: marshall(old) } : {}),
            NewImage: marshall(next!),
            StreamViewType: 'NEW_AND_OLD_IMAGES',
          },
        },
      });
    };
    const args = { orderId: 'o1' };
    await step('create', () => store.create({ approvalId: 'apr_1', tool: 'refund', args, runId: 'r', callId: 'c', fingerprint: callFingerprint('refund', args) }));
    await step(approved ? 'approve' : 'deny', () => store.decide('apr_1', { approved, by: 'alice' }));
    if (approved) {
      await step('claim', () => store.claim('apr_1', { until: now + 1000, token: 't' }));
      await step('complete', () => store.complete('apr_1', 't', { ok: true }));
    }
    return records;
  }

  async function expiryOf(): Promise<{ name: string; record: object }> {
    const { tableName, client } = await createTestTable();
    let now = Date.UTC(2030, 0, 1);
    const store = new DynamoApprovalStore({ tableName, client, now: () => now, ttlSeconds: 60 });
    await store.create({ approvalId: 'apr_1', tool: 'refund', args: {}, runId: 'r', callId: 'c', fingerprint: callFingerprint('refund', {}) });
    const old = (await client.send(new GetCommand({ TableName: tableName, Key: { pk: 'approval#apr_1' } }))).Item!;
    now += 60_000;
    await store.expireDue();
    const next = (await client.send(new GetCommand({ TableName: tableName, Key: { pk: 'approval#apr_1' } }))).Item!;
    return { name: 'expire', record: { eventName: 'MODIFY', dynamodb: { Keys: marshall({ pk: 'approval#apr_1' }), OldImage: marshall(old), NewImage: marshall(next) } } };
  }

  test('only the decision matches, approved or denied, and yields exactly {"approval_id": "<id>"}', async () => {
    const records = [...(await lifeOf(true)), ...(await lifeOf(false)), await expiryOf()];
    const pattern = decisionFilter() as Record<string, unknown>;
    const matched = records.filter(({ record }) => matchesPattern(pattern, record));
    expect(records.map((r) => r.name)).toEqual(['create', 'approve', 'claim', 'complete', 'create', 'deny', 'expire']);
    expect(matched.map((r) => r.name)).toEqual(['approve', 'deny']);
    for (const { record } of matched) expect(JSON.parse(renderInputTemplate(RESUME_INPUT_TEMPLATE, record))).toEqual({ approval_id: 'apr_1' });
  });

  test('a call item, and an approval of another owner, never match', async () => {
    const decided = (await lifeOf(true))[1].record as any;
    const callItem = { ...decided, dynamodb: { ...decided.dynamodb, Keys: marshall({ pk: 'call#["r","c"]' }) } };
    expect(matchesPattern(decisionFilter() as Record<string, unknown>, callItem)).toBe(false);
    expect(matchesPattern(decisionFilter('someone-else') as Record<string, unknown>, decided)).toBe(false);
    expect(matchesPattern(decisionFilter('handler') as Record<string, unknown>, decided)).toBe(true);
  });
});

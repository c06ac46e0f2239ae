import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { callFingerprint } from '../../lambda/ids';
import { TABLE } from '../../lambda/construct-contract';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { ToolHandler } from '../../lib';
import { decisionFilter, RESUME_INPUT_TEMPLATE } from '../../lib/approvals/auto-resume';
import { EXPIRE_ATTRIBUTE_NAMES } from '../../lib/permissions';
import { FLOW_ITEM_ATTRIBUTES } from '../../lib/permissions/expirer';
import { createTestTable } from '../support/dynamo';
import { matchesPattern } from '../../local/event-pattern';
import { renderInputTemplate } from '../../local/pipe';
import { renderInput } from '../../local/rule-input';
import { evaluatePutEvents } from './events-iam';
import { concrete } from './template-values';
import { actionsOf, handlerResource, onlyResource, props, statementsOfRole, toolStack, unbundledApp, withApprovalIndexes } from './helpers';

/** In the template: the resume path, the expiry schedule, notifications, who may publish replies. */

const plain = toolStack(unbundledApp(), 'Plain');
const t = Template.fromStack(plain.stack);
const fifoBuilt = toolStack(unbundledApp(), 'Fifo', { fifo: true });
const fifo = Template.fromStack(fifoBuilt.stack);
const notified = toolStack(unbundledApp(), 'Notified', {}, (stack) => ({
  replyBus: new events.EventBus(stack, 'Replies'),
  approvalNotifications: new sns.Topic(stack, 'Approvers'),
  notifyWithArgs: true,
}));
const tn = Template.fromStack(notified.stack);
const tableId = onlyResource(t, 'AWS::DynamoDB::Table').id;
const owner = plain.tools.owner;
const logicalId = (stack: Stack, path: string) => {
  const found = stack.node.findAll().find((c) => c.node.path === `${stack.stackName}/${path}`);
  if (!found) throw new Error(`no construct at ${path}`);
  return stack.getLogicalId((found.node.defaultChild ?? found) as any);
};
const busId = logicalId(plain.stack, 'Tools/ApprovalsTableToolHandlerResume/Bus');
const queueId = logicalId(plain.stack, 'Tools/Queue');
const eventDlqId = logicalId(plain.stack, 'Tools/EventDeadLetterQueue');
const ruleId = logicalId(plain.stack, 'Tools/ResumeRule');

/** Two handlers with pinned owners sharing the table the first one created. */
function twoOwners(): { stack: Stack; alpha: ToolHandler; beta: ToolHandler; template: Template } {
  const stack = new Stack(unbundledApp(), 'TwoOwners');
  const alpha = new ToolHandler(stack, 'Alpha', props({ owner: 'alpha' }));
  const beta = new ToolHandler(stack, 'Beta', props({ owner: 'beta', approvalsTable: alpha.approvalsTable }));
  return { stack, alpha, beta, template: Template.fromStack(stack) };
}
const two = twoOwners();

describe('auto-resume: one pipe per table onto its resume bus', () => {
  test('the created table streams new and old images', () => {
    t.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  test('the resume path sits beside the table: Tools/ApprovalsTableToolHandlerResume/{Bus,Pipe,Role,DeadLetterQueue} and its alarm', () => {
    const home = plain.tools.node.findChild('ApprovalsTableToolHandlerResume');
    expect(home.node.children.map((c) => c.node.id).sort()).toEqual(['Bus', 'DeadLetterQueue', 'Pipe', 'RedriveResumeDeadLetters', 'Role']);
    expect(plain.tools.node.tryFindChild('AutoResume')).toBeUndefined();
    expect(plain.stack.resolve(plain.tools.approvalsResumeBus!.eventBusArn)).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
  });

  test('a pipe from the stream (TRIM_HORIZON, a dead-letter queue) to the resume bus, keeping only decisions of any owner', () => {
    const { resource } = onlyResource(t, 'AWS::Pipes::Pipe');
    const p = resource.Properties;
    expect(p.Source).toEqual({ 'Fn::GetAtt': [tableId, 'StreamArn'] });
    expect(p.Target).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    expect(p.SourceParameters.DynamoDBStreamParameters.StartingPosition).toBe('TRIM_HORIZON');
    expect(p.SourceParameters.DynamoDBStreamParameters.DeadLetterConfig.Arn['Fn::GetAtt'][0]).toMatch(
      /^ToolsApprovalsTableToolHandlerResumeDeadLetterQueue/,
    );
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
  });

  test('the pipe announces { approval_id, owner } (never args) as source cdk-tool-handler-resume, Tool Approval Decided', () => {
    expect(onlyResource(t, 'AWS::Pipes::Pipe').resource.Properties.TargetParameters).toEqual({
      InputTemplate: '{"approval_id": "<$.dynamodb.NewImage.approvalId.S>", "owner": "<$.dynamodb.NewImage.owner.S>"}',
      EventBridgeEventBusParameters: { Source: 'cdk-tool-handler-resume', DetailType: 'Tool Approval Decided' },
    });
  });

  test("the handler's rule on the resume bus matches its owner only and puts {approval_id} on its queue, with retries and the event DLQ", () => {
    const rule = t.toJSON().Resources[ruleId];
    expect(rule.Properties).toEqual({
      Description: `cdk-tool-handler: resumes the decided approvals of owner ${owner}.`,
      EventBusName: { Ref: busId },
      EventPattern: { 'source': ['cdk-tool-handler-resume'], 'detail-type': ['Tool Approval Decided'], 'detail': { owner: [owner] } },
      State: 'ENABLED',
      Targets: [
        {
          Id: 'Target0',
          Arn: { 'Fn::GetAtt': [queueId, 'Arn'] },
          InputTransformer: { InputPathsMap: { 'detail-approval_id': '$.detail.approval_id' }, InputTemplate: '{"approval_id":<detail-approval_id>}' },
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 3600 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [eventDlqId, 'Arn'] } },
        },
      ],
    });
  });

  test('the tool queue lets EventBridge send from that rule only; the event DLQ takes its failures', () => {
    for (const queue of [queueId, eventDlqId]) {
      t.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queue }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'events.amazonaws.com' },
              Action: Match.anyValue(),
              Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
            }),
          ]),
        },
      });
    }
  });

  test('a FIFO tool queue: the rule sends in one message group; the pipe\'s dead-letter queue stays standard', () => {
    const rule = onlyResource(fifo, 'AWS::Events::Rule').resource;
    expect(rule.Properties.Targets[0].SqsParameters).toEqual({ MessageGroupId: 'approval-resumes' });
    expect(onlyResource(t, 'AWS::Events::Rule').resource.Properties.Targets[0].SqsParameters).toBeUndefined();
    const dlqs = fifo.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: Match.absent() } });
    expect(Object.keys(dlqs).some((id) => id.startsWith('ToolsApprovalsTableToolHandlerResumeDeadLetterQueue'))).toBe(true);
  });

  test("the pipe's role reads that stream, puts on the resume bus and sends to its dead-letter queue, nothing else", () => {
    const roleId = logicalId(plain.stack, 'Tools/ApprovalsTableToolHandlerResume/Role');
    const statements = statementsOfRole(t, roleId);
    expect(statements.find((s) => actionsOf(s).includes('dynamodb:GetRecords'))).toEqual({
      Effect: 'Allow',
      Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
      Resource: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
    });
    expect(statements.filter((s) => actionsOf(s).includes('events:PutEvents'))).toEqual([
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
      // It serves every owner of the table, so no owner's reply source and no owner's function is its own.
      {
        Sid: 'CdkToolHandlerNoOwnersReplies',
        Effect: 'Deny',
        Action: 'events:PutEvents',
        Resource: '*',
        Condition: { 'ForAnyValue:StringLike': { 'events:source': ['cdk-tool-handler', 'cdk-tool-handler.*'] } },
      },
    ]);
    expect(statements.filter((s) => s.Effect === 'Deny' && actionsOf(s).includes('lambda:InvokeFunction'))).toEqual([
      {
        Sid: 'CdkToolHandlerNoOwnersFunctions',
        Effect: 'Deny',
        Action: ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl', 'lambda:InvokeAsync'],
        Resource: '*',
        Condition: { Null: { 'aws:ResourceTag/cdk-tool-handler:function': 'false' } },
      },
    ]);
    const dlqId = logicalId(plain.stack, 'Tools/ApprovalsTableToolHandlerResume/DeadLetterQueue');
    const others = statements.filter((s) => s.Effect === 'Allow' && !actionsOf(s).includes('dynamodb:GetRecords') && !actionsOf(s).includes('events:PutEvents'));
    expect(others.flatMap(actionsOf).every((a) => a.startsWith('sqs:'))).toBe(true);
    for (const s of others) expect(s.Resource).toEqual({ 'Fn::GetAtt': [dlqId, 'Arn'] });
    // The tool queue is the rule's to send to, not the pipe's.
    expect(JSON.stringify(statements)).not.toContain(queueId);
  });

  test("the resume bus takes events from its pipe's role only: no one else feeds an owner's queue (or holds up a FIFO resume group)", () => {
    const resources = t.toJSON().Resources;
    const where = { account: '000000000000', region: 'us-east-1' };
    const value = (v: unknown) => concrete(v, resources, where) as any;
    const policy = Object.values(resources)
      .filter((r: any) => r.Type === 'AWS::Events::EventBusPolicy' && r.Properties.EventBusName.Ref === busId)
      .map((r: any) => value(r.Properties.Statement));
    const roleId = logicalId(plain.stack, 'Tools/ApprovalsTableToolHandlerResume/Role');
    const pipe = { principalArn: value({ 'Fn::GetAtt': [roleId, 'Arn'] }), identity: value(statementsOfRole(t, roleId)) };
    const resume = { bus: value({ 'Fn::GetAtt': [busId, 'Arn'] }), sources: ['cdk-tool-handler-resume'] };
    expect(evaluatePutEvents(pipe.identity, policy, { ...resume, principalArn: pipe.principalArn })).toBe('allowed');
    // Anyone else, with events:* on * (the handler's role of any owner included): refused by the bus.
    const anyone = [{ Effect: 'Allow', Action: 'events:*', Resource: '*' }];
    for (const principalArn of [`arn:aws:iam::${where.account}:role/admin`, value({ 'Fn::GetAtt': [logicalId(plain.stack, 'Tools/ServiceRole'), 'Arn'] })]) {
      expect(evaluatePutEvents(anyone, policy, { ...resume, principalArn })).toBe('explicitly denied');
    }
  });

  test('autoResume: false makes no pipe, no resume bus and no resume rule', () => {
    const off = toolStack(unbundledApp(), 'Off', { autoResume: false });
    const template = Template.fromStack(off.stack);
    template.resourceCountIs('AWS::Pipes::Pipe', 0);
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.resourceCountIs('AWS::Events::Rule', 0);
    expect(off.tools.approvalsResumeBus).toBeUndefined();
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

  test('a given table whose stream lacks the old images is a synth error', () => {
    expect(() =>
      toolStack(unbundledApp(), 'NewOnly', {}, (stack) => ({
        approvalsTable: new dynamodb.Table(stack, 'T', {
          partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
          stream: dynamodb.StreamViewType.NEW_IMAGE,
        }),
      })),
    ).toThrow(/NewOnly\/Tools: `approvalsTable`'s stream must show new and old images for `autoResume`, got: NEW_IMAGE/);
  });

  test("a given table: the pipe sits beside it, its filter keeps every owner's decisions, the rule matches this owner", () => {
    const shared = toolStack(unbundledApp(), 'Shared', {}, (stack) => ({
      approvalsTable: withApprovalIndexes(
        new dynamodb.Table(stack, 'T', {
          partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
          stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
        }),
      ),
    }));
    const template = Template.fromStack(shared.stack);
    const pipe = onlyResource(template, 'AWS::Pipes::Pipe');
    expect(pipe.id).toMatch(/^TToolHandlerResumePipe/);
    expect(JSON.parse(pipe.resource.Properties.SourceParameters.FilterCriteria.Filters[0].Pattern)).toEqual(decisionFilter());
    expect(onlyResource(template, 'AWS::Events::Rule').resource.Properties.EventPattern.detail).toEqual({ owner: [shared.tools.owner] });
  });
});

describe('expiry', () => {
  test('an EventBridge Scheduler schedule runs the expirer every 4 minutes, with a role that may invoke only it', () => {
    const { resource } = onlyResource(t, 'AWS::Scheduler::Schedule');
    const expirerId = Object.keys(t.findResources('AWS::Lambda::Function')).find((id) => id.startsWith('ToolsApprovalsExpirer'))!;
    expect(resource.Properties).toMatchObject({ ScheduleExpression: 'rate(4 minutes)', Target: { Arn: { 'Fn::GetAtt': [expirerId, 'Arn'] } } });
    const roleId = resource.Properties.Target.RoleArn['Fn::GetAtt'][0];
    const statements = statementsOfRole(t, roleId);
    expect(statements.filter((s) => s.Effect === 'Allow')).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [expirerId, 'Arn'] } },
    ]);
    // And the walls every role of the owner carries.
    expect(statements.filter((s) => s.Effect === 'Deny').map((s) => s.Sid)).toEqual([
      'CdkToolHandlerNoOtherOwnersFunctions',
      'CdkToolHandlerNoOtherOwnersReplies',
    ]);
  });

  test("the expirer's role Queries its owner's partition of the pending index, marks its owner's approvals and completes its owner's waiting flows, nothing else", () => {
    const roleId = logicalId(plain.stack, 'Tools/Approvals/ExpirerRole');
    const dynamo = statementsOfRole(t, roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toEqual([
      {
        Sid: 'ApprovalsExpirerReadsItsPending',
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId, 'Arn'] }, '/index/pendingByOwner']] },
        Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [owner] } },
      },
      {
        Sid: 'ApprovalsExpirerMarksExpiry',
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`approval#${owner}#*`] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': EXPIRE_ATTRIBUTE_NAMES },
        },
      },
      {
        Sid: 'ApprovalsExpirerCompletesItsFlows',
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`call#${owner}#flow#*`] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': FLOW_ITEM_ATTRIBUTES },
        },
      },
    ]);
    // A flow item's attributes only: never a call item's kept reply or lease.
    expect([...FLOW_ITEM_ATTRIBUTES].sort()).toEqual(['completion', 'completionAt', 'completionBy', 'deleteAt', 'kind', 'pk', 'replyTo']);
    // It marks `expiredAt` and removes the pending mark; it never names a decision attribute but `decision` (tested in its condition).
    expect([...EXPIRE_ATTRIBUTE_NAMES].sort()).toEqual(['decision', 'expiredAt', 'expiresAt', 'owner', 'pendingOwner', 'pk']);
  });

  test('approval items stay a day past expiry: TTL on deleteAt', () => {
    t.hasResourceProperties('AWS::DynamoDB::Table', { TimeToLiveSpecification: { AttributeName: 'deleteAt', Enabled: true } });
  });

  test('the expirer gets TOOL_HANDLER_OWNER, also for a table of its own', () => {
    const expirer = t.toJSON().Resources[logicalId(plain.stack, 'Tools/Approvals/Expirer')];
    expect(expirer.Properties.Environment.Variables.TOOL_HANDLER_OWNER).toBe(owner);
  });
});

describe('notifications and the reply source', () => {
  test('approvalNotifications without replyBus is a synth error naming both', () => {
    expect(() =>
      toolStack(unbundledApp(), 'NoBus', {}, (stack) => ({ approvalNotifications: new sns.Topic(stack, 'Topic') })),
    ).toThrow('NoBus/Tools: `approvalNotifications` needs `replyBus`: the notifications are made from the reply bus\'s events; set both, or neither.');
  });

  const notificationRules = (template: Template) =>
    Object.values(template.findResources('AWS::Events::Rule')).filter((r: any) =>
      (r.Properties.EventPattern.source ?? []).some((source: string) => source.startsWith('cdk-tool-handler.')),
    ) as any[];
  const source = `cdk-tool-handler.${notified.tools.owner}`;

  test("requested and expired approvals of the handler's own owner reach the topic as a short message with the CLI line (args only with notifyWithArgs)", () => {
    const rules = notificationRules(tn);
    expect(rules.map((r) => r.Properties.EventPattern)).toEqual([
      { source: [source], 'detail-type': ['Tool Approval Requested'] },
      { source: [source], 'detail-type': ['Tool Approval Expired'] },
    ]);
    const [requested, expired] = rules.map((r) => r.Properties.Targets[0].InputTransformer);
    // One approvals API in the stack: the approve line needs no --output.
    expect(requested.InputTemplate).toBe(
      '"Tool <detail-tool> needs approval: approval <detail-approval_id> (run <detail-run_id>, call <detail-call_id>), ' +
        'requested by <detail-requested_by_id>, until <detail-expires_at>. ' +
        'Args: <detail-args>. Approve: npx cdk-tool-handler approvals approve <detail-approval_id> --stack Notified"',
    );
    expect(expired.InputTemplate).toMatch(/was not approved in time/);
    expect(requested.InputPathsMap).toMatchObject({ 'detail-tool': '$.detail.tool', 'detail-args': '$.detail.args' });
    expect(handlerResource(tn, 'AWS::Lambda::Function').resource.Properties.Environment.Variables.TOOL_HANDLER_NOTIFY_WITH_ARGS).toBe('true');
  });

  test("only the handler and the expirer may put events on the reply bus, with their owner's source only", () => {
    const replies = logicalId(notified.stack, 'Replies');
    const putters = Object.values(tn.findResources('AWS::IAM::Policy')).flatMap((p: any) =>
      p.Properties.PolicyDocument.Statement.filter(
        (s: any) => actionsOf(s).includes('events:PutEvents') && JSON.stringify(s.Resource).includes(replies),
      ).map((s: any) => ({ roles: p.Properties.Roles, s })),
    );
    expect(putters).toHaveLength(2);
    for (const { roles, s } of putters) {
      expect(s.Condition).toEqual({ StringEquals: { 'events:source': source } });
      expect(roles[0].Ref).toMatch(/^Tools(ServiceRole|ApprovalsExpirerRole)/);
    }
    // The only other PutEvents: the resume pipe's, on its own bus.
    const elsewhere = Object.values(tn.findResources('AWS::IAM::Policy')).flatMap((p: any) =>
      p.Properties.PolicyDocument.Statement.filter(
        (s: any) => s.Effect === 'Allow' && actionsOf(s).includes('events:PutEvents') && !JSON.stringify(s.Resource).includes(replies),
      ),
    );
    expect(elsewhere).toEqual([
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [logicalId(notified.stack, 'Tools/ApprovalsTableToolHandlerResume/Bus'), 'Arn'] } },
    ]);
  });

  test('the handler and expirer roles carry the publisher tag that the reply bus policy asks for, and every role of the owner its owner tag', () => {
    const ownerTag = { Key: 'cdk-tool-handler:owner', Value: notified.tools.owner };
    for (const path of ['Tools/ServiceRole', 'Tools/Approvals/ExpirerRole']) {
      const role = tn.toJSON().Resources[logicalId(notified.stack, path)];
      expect(role.Properties.Tags).toEqual([ownerTag, { Key: 'cdk-tool-handler:publisher', Value: 'true' }]);
    }
    for (const path of ['Tools/Approvals/EngineRole', 'Tools/Approvals/ApiRole', 'Tools/Expiry/Role']) {
      expect(tn.toJSON().Resources[logicalId(notified.stack, path)].Properties.Tags).toEqual([ownerTag]);
    }
    // The resume pipe's role serves every owner of the table: no owner's, no publisher.
    expect(tn.toJSON().Resources[logicalId(notified.stack, 'Tools/ApprovalsTableToolHandlerResume/Role')].Properties.Tags).toBeUndefined();
  });

  test('the reply bus denies PutEvents with a reply source to every principal without that tag, and to each tagged one but its own owner\'s', () => {
    const replies = logicalId(notified.stack, 'Replies');
    const policies = (Object.values(tn.findResources('AWS::Events::EventBusPolicy')) as any[]).filter((p) => p.Properties.EventBusName.Ref === replies);
    const statement = (sid: string, condition: object) => ({
      EventBusName: { Ref: replies },
      StatementId: `cdk-${sid}`,
      Statement: { Sid: `cdk-${sid}`, Effect: 'Deny', Principal: { AWS: '*' }, Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [replies, 'Arn'] }, Condition: condition },
    });
    const replySource = { 'ForAnyValue:StringLike': { 'events:source': ['cdk-tool-handler', 'cdk-tool-handler.*'] } };
    expect(policies.map((p) => p.Properties)).toEqual([
      statement('CdkToolHandlerOnlyItsFunctionsPublish', { ...replySource, StringNotEquals: { 'aws:PrincipalTag/cdk-tool-handler:publisher': 'true' } }),
      statement('CdkToolHandlerEachOwnerItsOwnSource', {
        ...replySource,
        'ForAnyValue:StringNotEquals': { 'events:source': ['cdk-tool-handler.${aws:PrincipalTag/cdk-tool-handler:owner}'] },
      }),
    ]);
  });
});

describe('the resume path against real-shaped stream records (two owners, one table)', () => {
  type Named = { name: string; owner: string; record: any };

  /** Every write of an approval's life on dynalite, as the stream would show it (old and new images). */
  async function lifeOf(table: { tableName: string; client: any }, owner: string, approved: boolean): Promise<Named[]> {
    const { tableName, client } = table;
    const now = Date.UTC(2030, 0, 1);
    const store = new DynamoApprovalStore({ tableName, client, now: () => now, ttlSeconds: 60, owner });
    const pk = `approval#${owner}#apr_1`;
    const raw = async () => (await client.send(new GetCommand({ TableName: tableName, Key: { pk } }))).Item;
    const records: Named[] = [];
    const step = async (name: string, write: () => Promise<unknown>) => {
      const old = await raw();
      await write();
      const next = await raw();
      records.push({
        name,
        owner,
        record: {
          eventID: String(records.length),
          eventName: old ? 'MODIFY' : 'INSERT',
          eventSource: 'aws:dynamodb',
          awsRegion: 'us-east-1',
          dynamodb: {
            Keys: marshall({ pk }),
            ...(old ? { OldImage: marshall(old, { removeUndefinedValues: true }) } : {}),
            NewImage: marshall(next!, { removeUndefinedValues: true }),
            StreamViewType: 'NEW_AND_OLD_IMAGES',
          },
        },
      });
    };
    const args = { orderId: 'secret-order-o1' };
    await step('create', () => store.create({ approvalId: 'apr_1', tool: 'refund', args, runId: 'r', callId: 'c', fingerprint: callFingerprint('refund', args) }));
    await step(approved ? 'approve' : 'deny', () => store.decide('apr_1', { approved, by: 'alice' }));
    if (approved) {
      await step('claim', () => store.claim('apr_1', { until: now + 1000, token: 't' }));
      await step('complete', () => store.complete('apr_1', 't', { ok: true }));
    }
    return records;
  }

  async function expiryOf(table: { tableName: string; client: any }, owner: string): Promise<Named> {
    const { tableName, client } = table;
    let now = Date.UTC(2030, 0, 1);
    const store = new DynamoApprovalStore({ tableName, client, now: () => now, ttlSeconds: 60, owner });
    const pk = `approval#${owner}#apr_2`;
    await store.create({ approvalId: 'apr_2', tool: 'refund', args: {}, runId: 'r', callId: 'c2', fingerprint: callFingerprint('refund', {}) });
    const old = (await client.send(new GetCommand({ TableName: tableName, Key: { pk } }))).Item!;
    now += 60_000;
    expect((await store.expireDue()).expired.map((r) => r.approvalId)).toEqual(['apr_2']);
    const next = (await client.send(new GetCommand({ TableName: tableName, Key: { pk } }))).Item!;
    return {
      name: 'expire',
      owner,
      record: { eventName: 'MODIFY', dynamodb: { Keys: marshall({ pk }), OldImage: marshall(old, { removeUndefinedValues: true }), NewImage: marshall(next, { removeUndefinedValues: true }) } },
    };
  }

  let records: Named[];
  beforeAll(async () => {
    // Both owners on one table, with the same approval id (equal run and call ids): distinct keys.
    const table = await createTestTable();
    records = [
      ...(await lifeOf(table, 'alpha', true)),
      ...(await lifeOf(table, 'beta', false)),
      await expiryOf(table, 'alpha'),
    ];
  });

  /** The pipe as synthesized: its filter, and the event it puts on the bus for a record. */
  const pipe = onlyResource(two.template, 'AWS::Pipes::Pipe').resource.Properties;
  const filter = JSON.parse(pipe.SourceParameters.FilterCriteria.Filters[0].Pattern);
  const eventOf = (record: object) => ({
    'source': pipe.TargetParameters.EventBridgeEventBusParameters.Source,
    'detail-type': pipe.TargetParameters.EventBridgeEventBusParameters.DetailType,
    'detail': JSON.parse(renderInputTemplate(pipe.TargetParameters.InputTemplate, record)),
  });
  const ruleOf = (handler: ToolHandler) => two.template.toJSON().Resources[two.stack.getLogicalId(handler.node.findChild('ResumeRule').node.defaultChild as events.CfnRule)];

  test('the synthesized filter and template are those of lib/approvals/auto-resume.ts', () => {
    expect(filter).toEqual(decisionFilter());
    expect(pipe.TargetParameters.InputTemplate).toBe(RESUME_INPUT_TEMPLATE);
  });

  test('only the decisions match, approved or denied, of any owner (not create, claim, complete, expire)', () => {
    const names = records.map((r) => `${r.owner}:${r.name}`);
    expect(names).toEqual(['alpha:create', 'alpha:approve', 'alpha:claim', 'alpha:complete', 'beta:create', 'beta:deny', 'alpha:expire']);
    expect(records.filter((r) => matchesPattern(filter, r.record)).map((r) => `${r.owner}:${r.name}`)).toEqual(['alpha:approve', 'beta:deny']);
  });

  test("the pipe's template yields exactly { approval_id, owner }, the owner-free id, never args", () => {
    for (const { owner: recordOwner, record } of records.filter((r) => matchesPattern(filter, r.record))) {
      const text = renderInputTemplate(RESUME_INPUT_TEMPLATE, record);
      expect(JSON.parse(text)).toEqual({ approval_id: 'apr_1', owner: recordOwner });
      expect(text).not.toContain('secret-order-o1');
      expect(text).not.toContain('refund');
    }
  });

  test("each owner's rule matches only its own owner's events, and puts exactly {\"approval_id\": ...} on its queue", () => {
    const decided = records.filter((r) => matchesPattern(filter, r.record));
    for (const [handler, mine] of [[two.alpha, 'alpha'], [two.beta, 'beta']] as const) {
      const rule = ruleOf(handler);
      expect(rule.Properties.EventPattern.detail).toEqual({ owner: [mine] });
      const matched = decided.filter((r) => matchesPattern(rule.Properties.EventPattern, eventOf(r.record)));
      expect(matched.map((r) => r.owner)).toEqual([mine]);
      for (const r of matched) {
        const { InputPathsMap: paths, InputTemplate: template } = rule.Properties.Targets[0].InputTransformer;
        expect(JSON.parse(renderInput({ paths, template }, eventOf(r.record)))).toEqual({ approval_id: 'apr_1' });
      }
    }
  });

  test('an event of another source or detail type never matches a resume rule', () => {
    const decided = records.find((r) => r.name === 'approve')!;
    const rule = ruleOf(two.alpha);
    expect(matchesPattern(rule.Properties.EventPattern, { ...eventOf(decided.record), source: 'cdk-tool-handler' })).toBe(false);
    expect(matchesPattern(rule.Properties.EventPattern, { ...eventOf(decided.record), 'detail-type': 'Tool Call Succeeded' })).toBe(false);
    expect(matchesPattern(rule.Properties.EventPattern, eventOf(decided.record))).toBe(true);
  });

  test('a call item never matches, whoever owns it', () => {
    const decided = records.find((r) => r.name === 'approve')!.record;
    for (const pk of ['call#alpha#["r","c"]', 'call#beta#~abc']) {
      const callItem = { ...decided, dynamodb: { ...decided.dynamodb, Keys: marshall({ pk }) } };
      expect(matchesPattern(filter, callItem)).toBe(false);
    }
  });
});

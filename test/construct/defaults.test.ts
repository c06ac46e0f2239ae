import { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ENV, INDEXES, OWNER_PATTERN, TABLE } from '../../lambda/construct-contract';
import { actionsOf, handlerResource, onlyResource, statementsOfRole, toolStack, unbundledApp } from './helpers';

/** Every default of the props, read off one stack built with only the required props. */
const app = unbundledApp();
const { stack, tools } = toolStack(app, 'Defaults');
const template = Template.fromStack(stack);
const fn = handlerResource(template, 'AWS::Lambda::Function');
const queue = onlyResource(template, 'AWS::SQS::Queue', { RedrivePolicy: Match.anyValue() });
/** The handler's own role: the one that trusts Lambda (the resume pipe's role trusts Pipes). */
const handlerRole = handlerResource(template, 'AWS::IAM::Role', {
  AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] },
});

describe('the function', () => {
  test('is Node.js 22 on ARM64 with 512 MiB, handler `handler` of the bundled entry', () => {
    expect(fn.resource.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Handler: 'index.handler',
    });
  });

  test('times out after timeout + margin: 60 s + 1 s', () => {
    expect(fn.resource.Properties.Timeout).toBe(61);
  });

  test('logs JSON to its own log group, kept two years and retained', () => {
    const logGroup = handlerResource(template, 'AWS::Logs::LogGroup');
    expect(fn.resource.Properties.LoggingConfig).toEqual({ LogFormat: 'JSON', LogGroup: { Ref: logGroup.id } });
    expect(logGroup.resource.Properties.RetentionInDays).toBe(731);
    expect(logGroup.resource.DeletionPolicy).toBe('Retain');
  });

  test('gets exactly the construct environment, with source maps enabled', () => {
    const table = onlyResource(template, 'AWS::DynamoDB::Table');
    expect(fn.resource.Properties.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      [ENV.tools]: 'add,refund',
      [ENV.timeoutSeconds]: '60',
      [ENV.marginSeconds]: '1',
      [ENV.approvalsTable]: { Ref: table.id },
      [ENV.approvalsEngine]: { Ref: handlerEngineId() },
      [ENV.owner]: tools.owner,
      [ENV.approvalTtlSeconds]: String(7 * 24 * 3600),
      [ENV.metricsNamespace]: 'CdkToolHandler',
      // The queue's redrive policy: a waiting flow is told of a failure on the last receive.
      [ENV.maxReceiveCount]: '5',
    });
  });

  test('sets an owner also on a table of its own: derived from its path, at most 64 characters of the owner pattern', () => {
    expect(fn.resource.Properties.Environment.Variables[ENV.owner]).toBe(tools.owner);
    expect(tools.owner).toMatch(OWNER_PATTERN);
    expect(tools.owner).toMatch(/^DefaultsTools/);
  });

  test('has no tracing', () => {
    expect(fn.resource.Properties.TracingConfig).toBeUndefined();
  });

  test('retries asynchronous invocations twice within an hour, then sends them to the event dead-letter queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fn.id },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 3600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [eventDlqId(), 'Arn'] } } },
    });
  });

  test('has a role of its own with no managed policies', () => {
    const role = handlerRole;
    expect(role.resource.Properties.ManagedPolicyArns).toBeUndefined();
    expect(fn.resource.Properties.Role).toEqual({ 'Fn::GetAtt': [role.id, 'Arn'] });
  });

  test('is exposed as lambdaFunction', () => {
    expect(stack.resolve(tools.lambdaFunction.functionName)).toEqual({ Ref: fn.id });
  });
});

describe('the queue', () => {
  test('is a standard queue with SQS managed encryption (SSE-SQS), which the resume rule (EventBridge) can send to', () => {
    expect(queue.resource.Properties.SqsManagedSseEnabled).toBe(true);
    expect(queue.resource.Properties.KmsMasterKeyId).toBeUndefined();
    expect(queue.resource.Properties.FifoQueue).toBeUndefined();
  });

  test('has a visibility timeout of 6 × the function timeout (no batching window)', () => {
    expect(queue.resource.Properties.VisibilityTimeout).toBe(6 * 61);
  });

  test('moves a message to its dead-letter queue after 5 receives', () => {
    const dlqId = queue.resource.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    expect(queue.resource.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    const dlq = template.toJSON().Resources[dlqId];
    expect(dlq.Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(stack.resolve(tools.deadLetterQueue!.queueArn)).toEqual({ 'Fn::GetAtt': [dlqId, 'Arn'] });
  });

  test('it and its dead-letter queue are retained when they leave the stack, keeping calls not yet run and failed ones', () => {
    const dlqId = queue.resource.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    for (const id of [queue.id, dlqId]) {
      template.templateMatches({
        Resources: { [id]: { Type: 'AWS::SQS::Queue', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' } },
      });
    }
  });

  test('feeds the function 10 at a time, reporting batch item failures, with no window or concurrency cap', () => {
    const mapping = onlyResource(template, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.resource.Properties).toEqual({
      BatchSize: 10,
      EventSourceArn: { 'Fn::GetAtt': [queue.id, 'Arn'] },
      FunctionName: { Ref: fn.id },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test('no queue the construct creates uses the AWS managed key alias/aws/sqs (EventBridge cannot use it)', () => {
    const queues = Object.values(template.findResources('AWS::SQS::Queue')) as any[];
    expect(queues).toHaveLength(4);
    for (const q of queues) {
      expect(q.Properties.SqsManagedSseEnabled).toBe(true);
      expect(q.Properties.KmsMasterKeyId).toBeUndefined();
    }
  });

  test('every queue refuses requests without TLS', () => {
    const queues = Object.keys(template.findResources('AWS::SQS::Queue'));
    expect(queues).toHaveLength(4); // the tool queue, its dead-letter queue, the event and the resume dead-letter queues
    for (const id of queues) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  test('is exposed as queue', () => {
    expect(stack.resolve(tools.queue.queueArn)).toEqual({ 'Fn::GetAtt': [queue.id, 'Arn'] });
  });
});

describe('the event dead-letter queue', () => {
  test('uses SQS managed encryption, which EventBridge can write to, and keeps messages 14 days', () => {
    const dlq = template.toJSON().Resources[eventDlqId()];
    expect(dlq.Properties).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  test('is retained when it leaves the stack, keeping the failed calls', () => {
    template.templateMatches({
      Resources: { [eventDlqId()]: { Type: 'AWS::SQS::Queue', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' } },
    });
  });
});

describe('the approvals table', () => {
  const table = onlyResource(template, 'AWS::DynamoDB::Table');

  test('has the store layout: String partition key pk, no sort key, TTL on deleteAt, the two per-owner indexes', () => {
    expect(table.resource.Properties).toMatchObject({
      KeySchema: [{ AttributeName: TABLE.partitionKey, KeyType: 'HASH' }],
      AttributeDefinitions: [
        { AttributeName: TABLE.partitionKey, AttributeType: 'S' },
        { AttributeName: 'pendingOwner', AttributeType: 'S' },
        { AttributeName: 'expiresAt', AttributeType: 'N' },
        { AttributeName: 'owner', AttributeType: 'S' },
        { AttributeName: 'createdAt', AttributeType: 'N' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'pendingByOwner',
          KeySchema: [
            { AttributeName: 'pendingOwner', KeyType: 'HASH' },
            { AttributeName: 'expiresAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'approvalsByOwner',
          KeySchema: [
            { AttributeName: 'owner', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    });
  });

  test('its indexes are exactly those of lambda/construct-contract.ts INDEXES, which the stores read', () => {
    expect(table.resource.Properties.GlobalSecondaryIndexes.map((i: any) => i.IndexName)).toEqual(INDEXES.map((i) => i.name));
    expect(table.resource.Properties.GlobalSecondaryIndexes.map((i: any) => i.IndexName)).not.toContain('approvals');
  });

  test('is on demand, with point-in-time recovery, encrypted with the AWS managed key', () => {
    expect(table.resource.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    expect(table.resource.Properties.SSESpecification.KMSMasterKeyId).toBeUndefined();
  });

  test('is retained when it leaves the stack', () => {
    expect(table.resource.DeletionPolicy).toBe('Retain');
    expect(table.resource.UpdateReplacePolicy).toBe('Retain');
  });

  test('is exposed as approvalsTable', () => {
    expect(stack.resolve(tools.approvalsTable.tableName)).toEqual({ Ref: table.id });
  });
});

describe('without event sources or a reply bus', () => {
  test('the only rule is the resume rule, on the resume bus; rules lists no rule', () => {
    const rules = template.findResources('AWS::Events::Rule');
    expect(Object.keys(rules)).toEqual([expect.stringMatching(/^ToolsResumeRule/)]);
    const busId = onlyResource(template, 'AWS::Events::EventBus').id;
    expect(busId).toMatch(/^ToolsApprovalsTableToolHandlerResumeBus/);
    expect(Object.values(rules)[0].Properties.EventBusName).toEqual({ Ref: busId });
    expect(tools.rules).toEqual([]);
  });

  test('the function may not put events anywhere (its one events statement is the Deny of other owners\' reply sources), and its role carries no publisher tag', () => {
    const statements = statementsOfRole(template, handlerRole.id).filter((s) => actionsOf(s).some((a: string) => a.startsWith('events:')));
    expect(statements.map((s) => [s.Effect, s.Sid])).toEqual([['Deny', 'CdkToolHandlerNoOtherOwnersReplies']]);
    expect(handlerRole.resource.Properties.Tags).toEqual([{ Key: 'cdk-tool-handler:owner', Value: tools.owner }]);
  });

  test('the one bus policy is the resume bus\'s: only the resume pipe puts there', () => {
    const { resource } = onlyResource(template, 'AWS::Events::EventBusPolicy');
    expect(resource.Properties.Statement.Sid).toBe('cdk-CdkToolHandlerOnlyTheResumePipePuts');
  });
});

describe('the approvals functions', () => {
  const approvals = tools.node.findChild('Approvals');
  const resourceOf = (id: string) => template.toJSON().Resources[stack.getLogicalId(approvals.node.findChild(id).node.defaultChild as CfnElement)];

  test.each([
    ['Engine', 'approvals-engine'],
    ['Api', 'approvals-api'],
    ['Expirer', 'approvals-expirer'],
  ])('%s gets TOOL_HANDLER_OWNER and the tags the handler role and the SCP recognise it by (%s, the owner)', (id, role) => {
    const fnResource = resourceOf(id);
    expect(fnResource.Properties.Environment.Variables[ENV.owner]).toBe(tools.owner);
    expect(fnResource.Properties.Tags).toEqual([
      { Key: 'cdk-tool-handler:function', Value: role },
      { Key: 'cdk-tool-handler:owner', Value: tools.owner },
    ]);
  });
});

function eventDlqId(): string {
  const ids = Object.keys(template.findResources('AWS::SQS::Queue', { Properties: { SqsManagedSseEnabled: true } })).filter(
    (id) => id.startsWith('ToolsEventDeadLetterQueue'),
  );
  expect(ids).toHaveLength(1);
  return ids[0];
}

function handlerEngineId(): string {
  return stack.getLogicalId(tools.approvalsEngine.node.defaultChild as CfnElement);
}

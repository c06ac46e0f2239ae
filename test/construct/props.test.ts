import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ENV, OWNER_PATTERN, replyEventSource, TABLE } from '../../lambda/construct-contract';
import { ToolHandler, ToolHandlerProps } from '../../lib';
import { actionsOf, handlerResource, onlyResource, props, statementsOfRole, toolStack, unbundledApp, withApprovalIndexes } from './helpers';

/**
 * Each prop against its own stack; all stacks are built first and synthesized once.
 */
const app = unbundledApp();
const built: Record<string, { stack: Stack; tools: ToolHandler }> = {};
function build(id: string, overrides: Partial<ToolHandlerProps>, extra?: (stack: Stack) => Partial<ToolHandlerProps>) {
  built[id] = toolStack(app, id, overrides, extra);
}

build('Handler', { handler: 'main', tools: ['only_one'] });
build('Timeouts', { timeout: Duration.minutes(5), margin: Duration.seconds(10) });
build('Queue', { maxReceiveCount: 3, batchSize: 100, maxBatchingWindow: Duration.seconds(20), maxConcurrency: 5 });
build('Fifo', { fifo: true, batchSize: 5 });
build('GivenQueue', {}, (stack) => {
  const dlq = new sqs.Queue(stack, 'MyDlq');
  return { queue: new sqs.Queue(stack, 'MyQueue', { visibilityTimeout: Duration.minutes(7), deadLetterQueue: { queue: dlq, maxReceiveCount: 2 } }) };
});
build('ImportedQueue', {}, (stack) => ({
  queue: sqs.Queue.fromQueueArn(stack, 'Imported', 'arn:aws:sqs:us-east-1:123456789012:calls'),
}));
build('Events', {
  eventSources: [
    { eventPattern: { source: ['agent'] } },
    { eventPattern: { detailType: ['Tool Call'] }, retryAttempts: 0, maxEventAge: Duration.minutes(5), enabled: false, ruleName: 'tool-calls', description: 'calls' },
  ],
});
build('EventsOnBus', {});
build('GivenTable', {}, (stack) => ({
  approvalsTable: withApprovalIndexes(
    new dynamodb.Table(stack, 'MyTable', {
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: TABLE.ttlAttribute,
    }),
  ),
}));
build('Ttl', { approvalTtl: Duration.hours(12), removalPolicy: RemovalPolicy.DESTROY });
build('ReplyBus', {}, (stack) => ({ replyBus: new events.EventBus(stack, 'Replies') }));

// Rules and the reply bus: which rules could see the function's own replies.
const callPattern: events.EventPattern = { detailType: ['Tool Call'] };
build('LoopSameBus', {}, (stack) => {
  const replyBus = new events.EventBus(stack, 'Replies');
  return {
    replyBus,
    eventSources: [
      { eventBus: replyBus, eventPattern: callPattern },
      { eventBus: replyBus, eventPattern: { source: ['agent'], detailType: ['Tool Call'] } },
      { eventPattern: callPattern },
    ],
  };
});
build('LoopDefaultBus', {}, (stack) => ({
  replyBus: events.EventBus.fromEventBusName(stack, 'DefaultBus', 'default'),
  eventSources: [
    { eventPattern: callPattern },
    { eventBus: events.EventBus.fromEventBusArn(stack, 'DefaultByArn', 'arn:aws:events:us-east-1:123456789012:event-bus/default'), eventPattern: callPattern },
    { eventBus: new events.EventBus(stack, 'Calls'), eventPattern: callPattern },
  ],
}));
build('LoopSameName', {}, (stack) => ({
  replyBus: events.EventBus.fromEventBusName(stack, 'Replies', 'replies'),
  eventSources: [
    { eventBus: events.EventBus.fromEventBusName(stack, 'RepliesAgain', 'replies'), eventPattern: callPattern },
    { eventBus: events.EventBus.fromEventBusName(stack, 'Other', 'other'), eventPattern: callPattern },
  ],
}));
build('LoopOtherAccountDefault', {}, (stack) => ({
  replyBus: events.EventBus.fromEventBusArn(stack, 'TheirDefault', 'arn:aws:events:us-east-1:210987654321:event-bus/default'),
  eventSources: [{ eventPattern: callPattern }],
}));
build('Key', { eventSources: [{ eventPattern: { source: ['agent'] } }] }, (stack) => ({ encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }) }));
build('Function', {
  runtime: lambda.Runtime.NODEJS_24_X,
  architecture: lambda.Architecture.X86_64,
  memorySize: 1024,
  environment: { STAGE: 'test' },
  logRetention: logs.RetentionDays.ONE_MONTH,
  tracing: lambda.Tracing.ACTIVE,
  retryAttempts: 0,
  maxEventAge: Duration.minutes(10),
  bundling: { sourceMap: false },
});

build('Owner', { owner: 'orders.tools-1' });
build('GivenQueueWindow', { maxBatchingWindow: Duration.seconds(10) }, (stack) => ({
  queue: new sqs.Queue(stack, 'MyQueue', {
    visibilityTimeout: Duration.seconds(500),
    deadLetterQueue: { queue: new sqs.Queue(stack, 'MyDlq'), maxReceiveCount: 3 },
  }),
}));

// addEventSource on a custom bus, after construction.
const onBus = built.EventsOnBus;
const bus = new events.EventBus(onBus.stack, 'Calls');
const addedRule = onBus.tools.addEventSource('Orders', { eventBus: bus, eventPattern: { source: ['orders'] } });

// addEventSource after construction, on the reply bus.
const loopAdded = built.LoopSameBus.tools.addEventSource('Added', {
  eventBus: built.LoopSameBus.tools.node.scope!.node.findChild('Replies') as events.IEventBus,
  eventPattern: { resources: ['x'] },
});

const templates = Object.fromEntries(Object.entries(built).map(([id, b]) => [id, Template.fromStack(b.stack)]));
const fnOf = (id: string) => handlerResource(templates[id], 'AWS::Lambda::Function').resource.Properties;
const createdQueueOf = (id: string) => onlyResource(templates[id], 'AWS::SQS::Queue', { RedrivePolicy: Match.anyValue() });
/** The handler's own role (the one that trusts Lambda; the resume pipe's trusts Pipes). */
const handlerRoleOf = (template: Template) =>
  handlerResource(template, 'AWS::IAM::Role', { AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] } });
/** The reply bus `Replies` of stack `id` (the resume path has a bus of its own). */
const replyBusId = (id: string) =>
  built[id].stack.getLogicalId(built[id].stack.node.findChild('Replies').node.defaultChild as events.CfnEventBus);

describe('entry, handler and tools', () => {
  test('handler names the export; tools become TOOL_HANDLER_TOOLS', () => {
    expect(fnOf('Handler').Handler).toBe('index.main');
    expect(fnOf('Handler').Environment.Variables[ENV.tools]).toBe('only_one');
  });
});

describe('timeout and margin', () => {
  test('set the environment and a function timeout of their sum', () => {
    const fn = fnOf('Timeouts');
    expect(fn.Timeout).toBe(310);
    expect(fn.Environment.Variables).toMatchObject({ [ENV.timeoutSeconds]: '300', [ENV.marginSeconds]: '10' });
  });

  test('set the created queue visibility timeout to 6 × the function timeout', () => {
    expect(createdQueueOf('Timeouts').resource.Properties.VisibilityTimeout).toBe(6 * 310);
  });
});

describe('queue settings', () => {
  test('maxReceiveCount sets the redrive policy', () => {
    expect(createdQueueOf('Queue').resource.Properties.RedrivePolicy.maxReceiveCount).toBe(3);
  });

  test('the batching window adds to the visibility timeout', () => {
    expect(createdQueueOf('Queue').resource.Properties.VisibilityTimeout).toBe(6 * 61 + 20);
  });

  test('batchSize, maxBatchingWindow and maxConcurrency reach the event source', () => {
    templates.Queue.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 20,
      ScalingConfig: { MaximumConcurrency: 5 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test('fifo makes the queue and its dead-letter queue FIFO with content-based deduplication', () => {
    const fifoQueues = templates.Fifo.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: true } });
    expect(Object.values(fifoQueues).map((q: any) => q.Properties.ContentBasedDeduplication)).toEqual([true, true]);
    templates.Fifo.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 5 });
  });

  test('a given queue is used as is, with its dead-letter queue exposed', () => {
    const t = templates.GivenQueue;
    t.resourceCountIs('AWS::SQS::Queue', 4); // MyQueue, MyDlq, the event and the resume dead-letter queues
    const mine = onlyResource(t, 'AWS::SQS::Queue', { VisibilityTimeout: 420 });
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: { 'Fn::GetAtt': [mine.id, 'Arn'] } });
    const { stack, tools } = built.GivenQueue;
    expect(stack.resolve(tools.queue.queueArn)).toEqual({ 'Fn::GetAtt': [mine.id, 'Arn'] });
    expect(tools.deadLetterQueue).toBeDefined();
    expect(stack.resolve(tools.deadLetterQueue!.queueArn)).toEqual(
      mine.resource.Properties.RedrivePolicy.deadLetterTargetArn,
    );
  });

  test('an imported queue is consumed, and no queue is created for calls', () => {
    const t = templates.ImportedQueue;
    t.resourceCountIs('AWS::SQS::Queue', 2); // the event and the resume dead-letter queues only
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: 'arn:aws:sqs:us-east-1:123456789012:calls',
    });
    expect(built.ImportedQueue.tools.deadLetterQueue).toBeUndefined();
  });
});

describe('event sources', () => {
  const t = () => templates.Events;

  test('each item is a rule on the default bus, targeting the function with retries, an age limit and the DLQ', () => {
    const fnId = handlerResource(t(), 'AWS::Lambda::Function').id;
    const dlqId = Object.keys(t().findResources('AWS::SQS::Queue')).find((id) => id.startsWith('ToolsEventDeadLetterQueue'))!;
    t().hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['agent'] },
      State: 'ENABLED',
      EventBusName: Match.absent(),
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [fnId, 'Arn'] },
          Id: 'Target0',
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 3600 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
        },
      ],
    });
  });

  test('rule options reach the rule and its target', () => {
    t().hasResourceProperties('AWS::Events::Rule', {
      Name: 'tool-calls',
      Description: 'calls',
      State: 'DISABLED',
      EventPattern: { 'detail-type': ['Tool Call'] },
      Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 } })],
    });
  });

  test('EventBridge may invoke the function and write the dead-letter queue, for each rule', () => {
    t().resourceCountIs('AWS::Lambda::Permission', 2);
    t().hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Action: 'sqs:SendMessage', Principal: { Service: 'events.amazonaws.com' } }),
        ]),
      },
    });
  });

  test('the rules are exposed in order', () => {
    expect(built.Events.tools.rules).toHaveLength(2);
  });

  test('addEventSource adds a rule on the given bus, under EventSources/<id>', () => {
    const { stack, tools } = onBus;
    const busId = stack.getLogicalId(bus.node.defaultChild as events.CfnEventBus);
    templates.EventsOnBus.hasResourceProperties('AWS::Events::Rule', {
      EventBusName: { Ref: busId },
      EventPattern: { source: ['orders'] },
    });
    expect(addedRule.node.path).toBe(`${stack.stackName}/Tools/EventSources/Orders`);
    expect(tools.rules).toEqual([addedRule]);
  });
});

describe('approvals table, TTL and removal policy', () => {
  test('a given table is used: no table is created, its name reaches the environment', () => {
    const t = templates.GivenTable;
    const mine = onlyResource(t, 'AWS::DynamoDB::Table');
    expect(fnOf('GivenTable').Environment.Variables[ENV.approvalsTable]).toEqual({ Ref: mine.id });
    expect(mine.resource.Properties.BillingMode).toBeUndefined(); // the user's own settings
  });

  test('approvalTtl sets TOOL_HANDLER_APPROVAL_TTL_S', () => {
    expect(fnOf('Ttl').Environment.Variables[ENV.approvalTtlSeconds]).toBe('43200');
  });

  test('removalPolicy applies to the created table and log group', () => {
    expect(onlyResource(templates.Ttl, 'AWS::DynamoDB::Table').resource.DeletionPolicy).toBe('Delete');
    expect(handlerResource(templates.Ttl, 'AWS::Logs::LogGroup').resource.DeletionPolicy).toBe('Delete');
  });

  test('removalPolicy DESTROY applies to the queue and both dead-letter queues', () => {
    const { stack, tools } = built.Ttl;
    for (const dlq of [tools.queue, tools.deadLetterQueue!, tools.eventDeadLetterQueue]) {
      const id = stack.getLogicalId(dlq.node.defaultChild as sqs.CfnQueue);
      templates.Ttl.templateMatches({
        Resources: { [id]: { Type: 'AWS::SQS::Queue', DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' } },
      });
    }
  });
});

describe('reply bus', () => {
  test('sets TOOL_HANDLER_REPLY_BUS to the bus ARN and lets the function put events on it, only there', () => {
    const t = templates.ReplyBus;
    const busId = replyBusId('ReplyBus');
    expect(fnOf('ReplyBus').Environment.Variables[ENV.replyBus]).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    const roleId = handlerRoleOf(t).id;
    const put = statementsOfRole(t, roleId).filter((s) => [].concat(s.Action).includes('events:PutEvents' as never));
    const owner = built.ReplyBus.tools.owner;
    expect(put).toEqual([
      {
        Action: 'events:PutEvents',
        Effect: 'Deny',
        Resource: '*',
        Sid: 'CdkToolHandlerNoOtherOwnersReplies',
        Condition: {
          'ForAnyValue:StringLike': { 'events:source': ['cdk-tool-handler', 'cdk-tool-handler.*'] },
          'ForAnyValue:StringNotEquals': { 'events:source': [replyEventSource(owner)] },
        },
      },
      {
        Action: 'events:PutEvents',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [busId, 'Arn'] },
        Condition: { StringEquals: { 'events:source': replyEventSource(owner) } },
      },
    ]);
  });
});

describe('rules on the reply bus', () => {
  const notReplies = { source: [{ 'anything-but': { prefix: 'cdk-tool-handler' } }] };
  /** The synthesized EventPattern of each rule of stack `id`, in order. */
  const patterns = (id: string) => {
    const { stack, tools } = built[id];
    const resources = templates[id].toJSON().Resources;
    return tools.rules.map((rule) => resources[stack.getLogicalId(rule.node.defaultChild as events.CfnRule)].Properties.EventPattern);
  };

  test('a rule on the reply bus without `source` gets anything-but the reply sources; one with `source` is as given', () => {
    const [noSource, withSource] = patterns('LoopSameBus');
    expect(noSource).toEqual({ 'detail-type': ['Tool Call'], ...notReplies });
    expect(withSource).toEqual({ 'source': ['agent'], 'detail-type': ['Tool Call'] });
  });

  test('a rule on another bus (here the default bus) is as given', () => {
    expect(patterns('LoopSameBus')[2]).toEqual({ 'detail-type': ['Tool Call'] });
  });

  test('addEventSource on the reply bus gets it too', () => {
    expect(patterns('LoopSameBus')[3]).toEqual({ resources: ['x'], ...notReplies });
    expect(built.LoopSameBus.tools.rules[3]).toBe(loopAdded);
  });

  test("the user's pattern object is not changed", () => {
    expect(callPattern).toEqual({ detailType: ['Tool Call'] });
  });

  test('with the default bus as reply bus, rules on the default bus (no eventBus, or the default bus by ARN) get it; others do not', () => {
    expect(patterns('LoopDefaultBus')).toEqual([
      { 'detail-type': ['Tool Call'], ...notReplies },
      { 'detail-type': ['Tool Call'], ...notReplies },
      { 'detail-type': ['Tool Call'] },
    ]);
  });

  test('a rule on a bus of the same name (another handle on the same bus) gets it', () => {
    expect(patterns('LoopSameName')).toEqual([
      { 'detail-type': ['Tool Call'], ...notReplies },
      { 'detail-type': ['Tool Call'] },
    ]);
  });

  test("replies to another account's default bus never reach this account's default bus", () => {
    expect(patterns('LoopOtherAccountDefault')).toEqual([{ 'detail-type': ['Tool Call'] }]);
  });
});

describe('encryption key', () => {
  const t = () => templates.Key;
  const keyId = () => onlyResource(t(), 'AWS::KMS::Key').id;

  test('encrypts every queue and the table', () => {
    const queues = Object.values(t().findResources('AWS::SQS::Queue')) as any[];
    expect(queues).toHaveLength(4);
    for (const q of queues) expect(q.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId(), 'Arn'] });
    t().hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [keyId(), 'Arn'] } },
    });
  });

  test("lets EventBridge use the key for the construct's rules and queues only, and with no condition nowhere", () => {
    const statements = t().toJSON().Resources[keyId()].Properties.KeyPolicy.Statement as any[];
    const forEventBridge = statements.filter((s) => s.Principal?.Service === 'events.amazonaws.com');
    expect(forEventBridge).toHaveLength(1);
    expect(forEventBridge[0]).toMatchObject({ Effect: 'Allow', Action: ['kms:Decrypt', 'kms:GenerateDataKey'], Resource: '*' });
    expect(Object.keys(forEventBridge[0].Condition).sort()).toEqual(['ArnEquals', 'StringEquals']);
    expect(Object.keys(forEventBridge[0].Condition.ArnEquals)).toEqual(['aws:SourceArn']);
    expect(Object.keys(forEventBridge[0].Condition.StringEquals)).toEqual(['kms:EncryptionContext:aws:sqs:arn']);
  });

  test('lets the function use the key', () => {
    const roleId = handlerRoleOf(t()).id;
    const kmsStatements = statementsOfRole(t(), roleId).filter((s) => actionsOf(s).some((a: string) => a.startsWith('kms:')));
    expect(kmsStatements.length).toBeGreaterThan(0);
    for (const s of kmsStatements) expect(s.Resource).toEqual({ 'Fn::GetAtt': [keyId(), 'Arn'] });
  });
});

describe('function settings', () => {
  const fn = () => fnOf('Function');

  test('runtime, architecture and memory', () => {
    expect(fn()).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['x86_64'], MemorySize: 1024 });
  });

  test('environment is added to the construct variables; without source maps there is no NODE_OPTIONS', () => {
    expect(fn().Environment.Variables.STAGE).toBe('test');
    expect(fn().Environment.Variables.NODE_OPTIONS).toBeUndefined();
    expect(fn().Environment.Variables[ENV.tools]).toBe('add,refund');
  });

  test('log retention and tracing', () => {
    expect(handlerResource(templates.Function, 'AWS::Logs::LogGroup').resource.Properties.RetentionInDays).toBe(30);
    expect(fn().TracingConfig).toEqual({ Mode: 'Active' });
  });

  test('retryAttempts and maxEventAge set the asynchronous invocation config', () => {
    templates.Function.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 600,
    });
  });
});

describe('owner', () => {
  const { stack, tools } = built.Owner;
  const t = () => templates.Owner;
  /** The four functions of the construct: the handler and the approvals engine, API and expirer. */
  const functions = () => {
    const approvals = tools.node.findChild('Approvals');
    const idOf = (c: { node: { defaultChild?: unknown } }) => stack.getLogicalId(c.node.defaultChild as lambda.CfnFunction);
    const resources = t().toJSON().Resources;
    return Object.fromEntries(
      [
        ['handler', tools.lambdaFunction],
        ['engine', approvals.node.findChild('Engine')],
        ['api', approvals.node.findChild('Api')],
        ['expirer', approvals.node.findChild('Expirer')],
      ].map(([name, c]) => [name as string, resources[idOf(c as lambda.Function)]]),
    );
  };

  test('is exposed as given', () => {
    expect(tools.owner).toBe('orders.tools-1');
  });

  test('becomes TOOL_HANDLER_OWNER of all four functions', () => {
    const fns = functions();
    expect(Object.keys(fns)).toEqual(['handler', 'engine', 'api', 'expirer']);
    for (const fn of Object.values(fns)) expect(fn.Properties.Environment.Variables[ENV.owner]).toBe('orders.tools-1');
  });

  test("tags the handler, engine, API and expirer with the owner and what they are", () => {
    const fns = functions();
    const tags = (name: string) => Object.fromEntries(fns[name].Properties.Tags.map((tag: any) => [tag.Key, tag.Value]));
    expect(tags('engine')).toEqual({ 'cdk-tool-handler:function': 'approvals-engine', 'cdk-tool-handler:owner': 'orders.tools-1' });
    expect(tags('api')).toEqual({ 'cdk-tool-handler:function': 'approvals-api', 'cdk-tool-handler:owner': 'orders.tools-1' });
    expect(tags('expirer')).toEqual({ 'cdk-tool-handler:function': 'approvals-expirer', 'cdk-tool-handler:owner': 'orders.tools-1' });
    expect(tags('handler')).toEqual({ 'cdk-tool-handler:function': 'tool-handler', 'cdk-tool-handler:owner': 'orders.tools-1' });
  });

  test("is the key space of every table grant: call#<owner>#* for the handler, approval#<owner>#* for the others, and the expirer's call#<owner>#flow#* (waiting flows)", () => {
    const leadingKeys = Object.values(t().findResources('AWS::IAM::Policy'))
      .flatMap((p: any) => p.Properties.PolicyDocument.Statement)
      .filter((s: any) => JSON.stringify(s.Condition ?? {}).includes('dynamodb:LeadingKeys'))
      .flatMap((s: any) => Object.values(s.Condition).flatMap((c: any) => c['dynamodb:LeadingKeys'] ?? []));
    expect(new Set(leadingKeys)).toEqual(new Set(['call#orders.tools-1#*', 'approval#orders.tools-1#*', 'orders.tools-1', 'call#orders.tools-1#flow#*']));
  });

  test('is what its resume rule matches', () => {
    const rule = onlyResource(t(), 'AWS::Events::Rule').resource;
    expect(rule.Properties.EventPattern.detail).toEqual({ owner: ['orders.tools-1'] });
  });

  test.each([
    ['one character', 'a'],
    ['64 characters', 'x'.repeat(64)],
    ['every allowed kind of character', 'Az09_.-'],
    ['a UUID', '0b9c5a7e-7d1f-4e0b-8b8a-3f1f5f0e9d2c'],
  ])('accepts %s', (_, owner) => {
    const stack = new Stack(unbundledApp(), 'Ok');
    expect(new ToolHandler(stack, 'Tools', props({ owner })).owner).toBe(owner);
  });

  test.each([
    ['65 characters', 'x'.repeat(65)],
    ['empty', ''],
    ['a # (the key separator)', 'a#b'],
    ['a * (an IAM wildcard)', 'a*'],
    ['a ? (an IAM wildcard)', 'a?'],
    ['a space', 'a b'],
    ['a slash', 'a/b'],
    ['a non-ASCII letter', 'caf\u00e9'],
  ])('refuses %s at synth, naming the prop and the value', (_, owner) => {
    const stack = new Stack(unbundledApp(), 'Bad');
    expect(() => new ToolHandler(stack, 'Tools', props({ owner }))).toThrow(
      `Bad/Tools: \`owner\` must be 1 to 64 characters of A-Z a-z 0-9 _ . -, got: ${JSON.stringify(owner)}.`,
    );
  });

  test('the default owner matches the pattern', () => {
    expect(built.Handler.tools.owner).toMatch(OWNER_PATTERN);
  });
});

describe('queue encryption', () => {
  test('without encryptionKey, the created FIFO queue and its dead-letter queue use SQS managed encryption too', () => {
    const fifoQueues = Object.values(templates.Fifo.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: true } })) as any[];
    expect(fifoQueues).toHaveLength(2);
    for (const q of fifoQueues) {
      expect(q.Properties.SqsManagedSseEnabled).toBe(true);
      expect(q.Properties.KmsMasterKeyId).toBeUndefined();
    }
  });
});

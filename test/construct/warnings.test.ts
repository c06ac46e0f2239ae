import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ToolHandlerProps } from '../../lib';
import { toolStack, unbundledApp, withApprovalIndexes } from './helpers';

/** Doubtful props add warnings (not errors); all stacks are synthesized once. */
const app = unbundledApp();
const stacks: Record<string, Stack> = {};
function build(id: string, overrides: Partial<ToolHandlerProps>, extra?: (stack: Stack) => Partial<ToolHandlerProps>) {
  stacks[id] = toolStack(app, id, overrides, extra).stack;
}

build('Plain', {});
build('ImportedQueue', { maxBatchingWindow: Duration.seconds(4) }, (stack) => ({
  queue: sqs.Queue.fromQueueArn(stack, 'Q', 'arn:aws:sqs:us-east-1:123456789012:calls'),
}));
build('ImportedQueueNoResume', { autoResume: false }, (stack) => ({
  queue: sqs.Queue.fromQueueArn(stack, 'Q', 'arn:aws:sqs:us-east-1:123456789012:calls'),
}));
build('ShortQueue', {}, (stack) => ({ queue: new sqs.Queue(stack, 'Q', { visibilityTimeout: Duration.seconds(100) }) }));
build('GoodQueue', {}, (stack) => ({
  queue: new sqs.Queue(stack, 'Q', {
    visibilityTimeout: Duration.seconds(366),
    deadLetterQueue: { queue: new sqs.Queue(stack, 'Dlq'), maxReceiveCount: 3 },
  }),
}));
build('ImportedTable', { autoResume: false }, (stack) => ({ approvalsTable: dynamodb.Table.fromTableName(stack, 'T', 'approvals') }));
build('TableWithoutTtl', {}, (stack) => ({
  approvalsTable: withApprovalIndexes(
    new dynamodb.Table(stack, 'T', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    }),
  ),
}));
build('TableWithTtlAndIndexes', {}, (stack) => ({
  approvalsTable: withApprovalIndexes(
    new dynamodb.Table(stack, 'T', {
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: 'deleteAt',
    }),
  ),
}));
build('ZeroMargin', { margin: Duration.seconds(0) });
build('ImportedKey', { eventSources: [{ eventPattern: { source: ['a'] } }] }, (stack) => ({
  encryptionKey: kms.Key.fromKeyArn(stack, 'K', 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555'),
}));
build('ImportedKeyNoRules', { autoResume: false }, (stack) => ({
  encryptionKey: kms.Key.fromKeyArn(stack, 'K', 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555'),
}));
build('ImportedKeyResumeOnly', {}, (stack) => ({
  encryptionKey: kms.Key.fromKeyArn(stack, 'K', 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555'),
}));
build('ImportedReplyBus', {}, (stack) => ({
  replyBus: events.EventBus.fromEventBusArn(stack, 'Replies', 'arn:aws:events:us-east-1:123456789012:event-bus/replies'),
}));
build('ReplyBusInApp', {}, (stack) => ({ replyBus: new events.EventBus(stack, 'Replies') }));

/** The construct's warnings (`cdk-tool-handler:*`) on `Tools`, as `id: message`. */
function warnings(id: string): string[] {
  return Annotations.fromStack(stacks[id])
    .findWarning(`/${id}/Tools`, Match.anyValue())
    .map((w) => String(w.entry.data))
    .filter((m) => m.includes('cdk-tool-handler:'));
}

test('plain props warn about nothing', () => {
  expect(warnings('Plain')).toEqual([]);
});

const PENDING_INDEX =
  'a global secondary index "pendingByOwner" (partition key String "pendingOwner", sort key Number "expiresAt", all attributes projected)';
const OWNER_INDEX =
  'a global secondary index "approvalsByOwner" (partition key String "owner", sort key Number "createdAt", all attributes projected)';
const RESUME_QUEUE_POLICY =
  '`queue` is imported: its policy must let events.amazonaws.com send messages from the resume rule (ResumeRule) only ' +
  '(aws:SourceArn), and its key (if any) let EventBridge use it for that rule only, or decided approvals are not resumed ' +
  '(and any rule in the account could send to it). [ack: cdk-tool-handler:resumeQueuePolicy]';

test('an imported queue: its visibility timeout cannot be checked, and its policy must let the resume rule send', () => {
  expect(warnings('ImportedQueue')).toEqual([
    'The visibility timeout of `queue` cannot be checked: make it at least 370 s (6 × the function timeout + the batching window), ' +
      'or a message may be delivered again while its call still runs. [ack: cdk-tool-handler:queueVisibilityTimeoutUnchecked]',
    RESUME_QUEUE_POLICY,
  ]);
});

test('an imported queue without autoResume: no resume rule sends to it, so only the visibility timeout is doubtful', () => {
  const found = warnings('ImportedQueueNoResume');
  expect(found).toHaveLength(1);
  expect(found[0]).toMatch(/\[ack: cdk-tool-handler:queueVisibilityTimeoutUnchecked\]$/);
});

test('a queue in this app with a short visibility timeout and no dead-letter queue', () => {
  expect(warnings('ShortQueue')).toEqual([
    'The visibility timeout of `queue` is 100 s; AWS recommends at least 366 s (6 × the function timeout + the batching window), ' +
      'so that a message is not delivered again while its call still runs. [ack: cdk-tool-handler:queueVisibilityTimeoutShort]',
    '`queue` has no dead-letter queue: a call the handler reports failed is received again until the message expires. ' +
      '[ack: cdk-tool-handler:queueWithoutDeadLetterQueue]',
  ]);
});

test('a queue in this app with the recommended visibility timeout and a dead-letter queue', () => {
  expect(warnings('GoodQueue')).toEqual([]);
});

test('an imported table: its key schema, TTL and indexes cannot be checked', () => {
  expect(warnings('ImportedTable')).toEqual([
    'The key schema and TTL of `approvalsTable` cannot be checked: it needs a String partition key "pk", no sort key, TTL on "deleteAt", ' +
      `and ${PENDING_INDEX} and ${OWNER_INDEX}. [ack: cdk-tool-handler:approvalsTableUnchecked]`,
  ]);
});

test('a table in this app with TTL and both per-owner indexes: nothing to warn of', () => {
  expect(warnings('TableWithTtlAndIndexes')).toEqual([]);
});

test('a table in this app with its indexes but without TTL: a warning (it works; nothing is ever deleted)', () => {
  expect(warnings('TableWithoutTtl')).toEqual([
    '`approvalsTable` should have TTL on "deleteAt", got: no TTL. Without it, expired approvals and kept replies are never deleted ' +
      '(the handler still treats them as gone). [ack: cdk-tool-handler:approvalsTableTtl]',
  ]);
});

test('a margin of 0 s', () => {
  expect(warnings('ZeroMargin')).toEqual([
    '`margin` is 0 s: a tool may run until Lambda stops the function, leaving no time to report its result. [ack: cdk-tool-handler:marginZero]',
  ]);
});

const KEY_POLICY =
  'The key policy of the imported key that encrypts the queues EventBridge sends to cannot be changed here: it must allow the ' +
  "service principal events.amazonaws.com kms:Decrypt and kms:GenerateDataKey for this construct's rules (aws:SourceArn) and " +
  'queues (kms:EncryptionContext:aws:sqs:arn) only, or EventBridge cannot put resumes on the tool queue nor undeliverable events ' +
  'into the event dead-letter queue. [ack: cdk-tool-handler:encryptionKeyPolicy]';

test('an imported key with rules: its key policy must let EventBridge use it', () => {
  expect(warnings('ImportedKey')).toEqual([KEY_POLICY]);
});

test('an imported key and autoResume (the resume rule sends to the queues that key encrypts): the same warning, once', () => {
  expect(warnings('ImportedKeyResumeOnly')).toEqual([KEY_POLICY]);
});

test('an imported key without rules and without autoResume: EventBridge writes nothing, nothing to warn of', () => {
  expect(warnings('ImportedKeyNoRules')).toEqual([]);
});

test('an imported reply bus: its policy cannot keep others from publishing with a reply source', () => {
  expect(warnings('ImportedReplyBus')).toEqual([
    "`replyBus` is imported, so its policy cannot be extended here: any principal with events:PutEvents on it, other than the " +
      "roles of this construct (which are denied other owners' sources), can publish events with a reply source " +
      'cdk-tool-handler.<owner> (such as a fake "Tool Approval Requested"). Add to its policy the two Denies of the security guide ' +
      '(docs/security.md, also in the package): reply sources only for principals tagged cdk-tool-handler:publisher=true, and each only its own ' +
      "owner's (cdk-tool-handler:owner). [ack: cdk-tool-handler:replyBusPolicy]",
  ]);
});

test('a reply bus defined in the app: its policy is extended, nothing to warn of', () => {
  expect(warnings('ReplyBusInApp')).toEqual([]);
});

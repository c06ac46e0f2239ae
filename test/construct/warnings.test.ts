import { Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ToolHandlerProps } from '../../lib';
import { toolStack, unbundledApp } from './helpers';

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
build('ShortQueue', {}, (stack) => ({ queue: new sqs.Queue(stack, 'Q', { visibilityTimeout: Duration.seconds(100) }) }));
build('GoodQueue', {}, (stack) => ({
  queue: new sqs.Queue(stack, 'Q', {
    visibilityTimeout: Duration.seconds(366),
    deadLetterQueue: { queue: new sqs.Queue(stack, 'Dlq'), maxReceiveCount: 3 },
  }),
}));
build('ImportedTable', { autoResume: false }, (stack) => ({ approvalsTable: dynamodb.Table.fromTableName(stack, 'T', 'approvals') }));
build('TableWithoutTtl', {}, (stack) => ({
  approvalsTable: new dynamodb.Table(stack, 'T', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
  }),
}));
build('TableWithTtlAndIndex', {}, (stack) => {
  const table = new dynamodb.Table(stack, 'T', {
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    timeToLiveAttribute: 'deleteAt',
  });
  table.addGlobalSecondaryIndex({ indexName: 'approvals', partitionKey: { name: 'approvalId', type: dynamodb.AttributeType.STRING } });
  return { approvalsTable: table };
});
build('ZeroMargin', { margin: Duration.seconds(0) });
build('ImportedKey', { eventSources: [{ eventPattern: { source: ['a'] } }] }, (stack) => ({
  encryptionKey: kms.Key.fromKeyArn(stack, 'K', 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555'),
}));
build('ImportedKeyNoRules', {}, (stack) => ({
  encryptionKey: kms.Key.fromKeyArn(stack, 'K', 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555'),
}));

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

test('an imported queue: its visibility timeout cannot be checked', () => {
  expect(warnings('ImportedQueue')).toEqual([
    'The visibility timeout of `queue` cannot be checked: make it at least 370 s (6 × the function timeout + the batching window), ' +
      'or a message may be delivered again while its call still runs. [ack: cdk-tool-handler:queueVisibilityTimeoutUnchecked]',
  ]);
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

test('an imported table: its key schema and TTL cannot be checked', () => {
  expect(warnings('ImportedTable')).toEqual([
    'The key schema and TTL of `approvalsTable` cannot be checked: it needs a String partition key "pk", no sort key, TTL on "deleteAt", ' +
      'and for listing approvals a global secondary index "approvals" keyed on the String "approvalId". ' +
      '[ack: cdk-tool-handler:approvalsTableUnchecked]',
  ]);
});

test('a table in this app with TTL and the approvals index: nothing to warn of', () => {
  expect(warnings('TableWithTtlAndIndex')).toEqual([]);
});

test('a table in this app without TTL nor the approvals index', () => {
  expect(warnings('TableWithoutTtl')).toEqual([
    '`approvalsTable` has no global secondary index "approvals" keyed on the String "approvalId": listing approvals ' +
      '(the approvals API, `grantReadApprovals`) will fail. [ack: cdk-tool-handler:approvalsTableIndex]',
    '`approvalsTable` should have TTL on "deleteAt", got: no TTL. Without it, expired approvals and kept replies are never deleted ' +
      '(the handler still treats them as gone). [ack: cdk-tool-handler:approvalsTableTtl]',
  ]);
});

test('a margin of 0 s', () => {
  expect(warnings('ZeroMargin')).toEqual([
    '`margin` is 0 s: a tool may run until Lambda stops the function, leaving no time to report its result. [ack: cdk-tool-handler:marginZero]',
  ]);
});

test('an imported key with rules: its key policy must let EventBridge use it', () => {
  expect(warnings('ImportedKey')).toEqual([
    'The key policy of the imported `encryptionKey` must allow the service principal events.amazonaws.com kms:Decrypt and ' +
      'kms:GenerateDataKey, or EventBridge cannot put undeliverable events into the event dead-letter queue. [ack: cdk-tool-handler:encryptionKeyPolicy]',
  ]);
  expect(warnings('ImportedKeyNoRules')).toEqual([]);
});

/**
 * Props are checked before anything is bundled: a wrong prop fails at once, with its own message,
 * instead of after esbuild. The spy is the bundling step itself: the user's
 * `beforeBundling` hook, which NodejsFunction calls when it sets up bundling, throws a marker. A bad
 * prop must throw its own message, never the marker; good props reach the marker (so the spy works).
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { TABLE } from '../../lambda/construct-contract';
import { ToolHandler, ToolHandlerProps } from '../../lib';
import { ENV, props } from './helpers';

const BUNDLING_STARTED = 'bundling started';
const spy = {
  commandHooks: {
    beforeBundling(): string[] {
      throw new Error(BUNDLING_STARTED);
    },
    beforeInstall: (): string[] => [],
    afterBundling: (): string[] => [],
  },
};

/** Builds a handler in an app that bundles; returns what it threw. */
function attempt(extra: (stack: Stack) => Partial<ToolHandlerProps>): { message: string } {
  const stack = new Stack(new App(), 'Early', { env: ENV });
  const given = extra(stack);
  try {
    new ToolHandler(stack, 'Tools', props({ bundling: spy, ...given }));
  } catch (error) {
    return { message: (error as Error).message };
  }
  throw new Error('expected the construct to throw');
}

const streamless = (stack: Stack) =>
  new dynamodb.Table(stack, 'T', { partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING } });

const cases: Array<[string, (stack: Stack) => Partial<ToolHandlerProps>, RegExp]> = [
  ['a timeout over 15 minutes', () => ({ timeout: Duration.minutes(16) }), /`timeout` plus `margin` must be at most 15 minutes/],
  ['margin not shorter than timeout', () => ({ margin: Duration.seconds(60) }), /`margin` must be shorter than `timeout`/],
  ['an empty allowlist', () => ({ tools: [] }), /`tools` must name at least one tool/],
  ['a table without a stream (autoResume)', (s) => ({ approvalsTable: streamless(s) }), /`approvalsTable` has no stream/],
  ['a table without the per-owner indexes', (s) => ({ approvalsTable: streamless(s), autoResume: false }), /`approvalsTable` lacks/],
  ['an imported table without its stream', (s) => ({ approvalsTable: dynamodb.Table.fromTableName(s, 'T', 'approvals') }), /has no stream/],
  [
    'a queue on alias/aws/sqs (autoResume)',
    (s) => ({ queue: new sqs.Queue(s, 'Q', { encryption: sqs.QueueEncryption.KMS_MANAGED, visibilityTimeout: Duration.minutes(10) }) }),
    /`queue` is encrypted with the AWS managed key alias\/aws\/sqs/,
  ],
  [
    'a resume bus of another account',
    (s) => ({ approvalsResumeBus: events.EventBus.fromEventBusArn(s, 'B', 'arn:aws:events:us-east-1:999999999999:event-bus/resumes') }),
    /`approvalsResumeBus` must be in this stack's account and region/,
  ],
  ['approvalNotifications without replyBus', (s) => ({ approvalNotifications: new sns.Topic(s, 'Topic') }), /`approvalNotifications` needs `replyBus`/],
  ['an event source without a pattern', () => ({ eventSources: [{ eventPattern: {} }] }), /`eventSources\[0\]\.eventPattern` must match on at least one field/],
  [
    'an event source that would take the replies back in',
    (s) => {
      const replyBus = new events.EventBus(s, 'Replies');
      return { replyBus, eventSources: [{ eventBus: replyBus, eventPattern: { source: ['cdk-tool-handler'] } }] };
    },
    /must not name a source beginning with "cdk-tool-handler" on the reply bus/,
  ],
];

test.each(cases)('%s: its own error, before bundling starts', (_name, extra, expected) => {
  const { message } = attempt(extra);
  expect(message).not.toContain(BUNDLING_STARTED);
  expect(message).toMatch(expected);
});

test('good props reach the bundling step (the spy sits where bundling starts)', () => {
  expect(attempt(() => ({})).message).toBe(BUNDLING_STARTED);
});

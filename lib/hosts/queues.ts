import { Annotations, Duration, Names, RemovalPolicy, Token, Validations } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULTS } from '../defaults';
import { fail } from '../errors';
import { ToolHandlerProps } from '../tool-handler-props';
import { isFifo, Settings } from '../validation';

/** The queues of a tool handler. */
export interface HandlerQueues {
  /** Where tool calls come from: the given queue, or a created one. */
  readonly queue: sqs.IQueue;
  /** The dead-letter queue of `queue`, when known. */
  readonly deadLetterQueue?: sqs.IQueue;
  /** Where failed event-borne calls are kept (`createEventDeadLetterQueue`). */
  readonly eventDeadLetterQueue: sqs.Queue;
}

/**
 * The handler's queues: `props.queue` (checked) or a created one with its dead-letter queue, and
 * the event dead-letter queue.
 */
export function toolQueuesFor(
  scope: Construct,
  props: ToolHandlerProps,
  settings: Settings,
  removalPolicy: RemovalPolicy,
): HandlerQueues {
  const recommendedVisibility =
    DEFAULTS.visibilityTimeoutFactor * settings.functionTimeoutSeconds + settings.batchingWindowSeconds;
  let queue: sqs.IQueue;
  let deadLetterQueue: sqs.IQueue | undefined;
  if (props.queue) {
    checkGivenQueue(scope, props.queue, settings.functionTimeoutSeconds, recommendedVisibility);
    queue = props.queue;
    deadLetterQueue = props.queue instanceof sqs.Queue ? props.queue.deadLetterQueue?.queue : undefined;
  } else {
    ({ queue, deadLetterQueue } = createToolQueues(scope, {
      fifo: isFifo(props),
      maxReceiveCount: props.maxReceiveCount ?? DEFAULTS.maxReceiveCount,
      visibilityTimeout: Duration.seconds(recommendedVisibility),
      encryptionKey: props.encryptionKey,
      removalPolicy,
    }));
  }
  const eventDeadLetterQueue = createEventDeadLetterQueue(scope, props.encryptionKey, removalPolicy);
  Validations.of(eventDeadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself a dead-letter queue: the EventBridge rule targets\' DLQ and the function\'s asynchronous ' +
      'on-failure destination, neither of which cdk-nag recognises as a DLQ.',
  });
  return { queue, deadLetterQueue, eventDeadLetterQueue };
}

interface ToolQueueOptions {
  readonly fifo: boolean;
  readonly maxReceiveCount: number;
  readonly visibilityTimeout: Duration;
  readonly encryptionKey?: kms.IKey;
  /** Of both queues, which hold calls not yet run and calls that failed (the construct's `removalPolicy`). */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The tool-call queue: encrypted (SQS managed encryption unless a key is given: the resume rule and
 * other EventBridge rules send to it, and EventBridge cannot use the AWS managed key
 * `alias/aws/sqs`), TLS only, and a dead-letter queue after `maxReceiveCount`
 * receives, which is where the calls that the handler reports failed end up. Both follow
 * `removalPolicy` (retained by default), so that deleting the stack discards neither the calls not
 * yet run nor the failed ones.
 */
function createToolQueues(scope: Construct, options: ToolQueueOptions): { queue: sqs.Queue; deadLetterQueue: sqs.Queue } {
  const deadLetterQueue = new sqs.Queue(scope, 'DeadLetterQueue', {
    ...encryption(options.encryptionKey, sqs.QueueEncryption.SQS_MANAGED),
    ...fifo(options.fifo),
    enforceSSL: true,
    retentionPeriod: DEFAULTS.deadLetterRetention,
    removalPolicy: options.removalPolicy,
  });
  const queue = new sqs.Queue(scope, 'Queue', {
    ...encryption(options.encryptionKey, sqs.QueueEncryption.SQS_MANAGED),
    ...fifo(options.fifo),
    enforceSSL: true,
    visibilityTimeout: options.visibilityTimeout,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: options.maxReceiveCount },
    removalPolicy: options.removalPolicy,
  });
  if (options.encryptionKey) nameForKeyPolicy(queue, options.fifo);
  return { queue, deadLetterQueue };
}

/**
 * Where event-borne calls go when they fail for good: the EventBridge rule targets' dead-letter
 * queue (events EventBridge could not hand to the function) and the function's asynchronous
 * on-failure destination (invocations that failed after Lambda's retries).
 *
 * EventBridge sends to this queue as the `events.amazonaws.com` service, which cannot use the AWS
 * managed key `alias/aws/sqs` (its key policy cannot be changed). So without a customer key it uses
 * SQS managed encryption (SSE-SQS), and with one the construct grants EventBridge the key for its
 * own rules (eventbridge-sends.ts). Like the other dead-letter queue it follows `removalPolicy`.
 */
function createEventDeadLetterQueue(
  scope: Construct,
  encryptionKey: kms.IKey | undefined,
  removalPolicy: RemovalPolicy,
): sqs.Queue {
  const queue = new sqs.Queue(scope, 'EventDeadLetterQueue', {
    ...encryption(encryptionKey, sqs.QueueEncryption.SQS_MANAGED),
    enforceSSL: true,
    retentionPeriod: DEFAULTS.deadLetterRetention,
    removalPolicy,
  });
  if (encryptionKey) nameForKeyPolicy(queue, false);
  return queue;
}

/**
 * A queue that EventBridge sends to, encrypted with a customer managed key, gets a name fixed at
 * synth: the key's policy names the queue (`kms:EncryptionContext:aws:sqs:arn`), and an ARN that
 * referred to the queue resource would make a cycle (the queue refers to the key).
 */
function nameForKeyPolicy(queue: sqs.Queue, isFifo: boolean): void {
  const suffix = isFifo ? '.fifo' : '';
  (queue.node.defaultChild as sqs.CfnQueue).queueName = `${Names.uniqueResourceName(queue, { maxLength: 80 - suffix.length })}${suffix}`;
}

/**
 * Checks a queue the user passed. A `sqs.Queue` defined in this app can be checked: a visibility
 * timeout shorter than the function timeout throws (Lambda rejects the event source), one shorter than
 * the recommended 6 × function timeout + batching window warns, and so does a queue without a
 * dead-letter queue. Any other queue cannot be checked, which adds a warning.
 */
function checkGivenQueue(scope: Construct, queue: sqs.IQueue, functionTimeout: number, recommended: number): void {
  if (!(queue instanceof sqs.Queue)) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:queueVisibilityTimeoutUnchecked',
      `The visibility timeout of \`queue\` cannot be checked: make it at least ${recommended} s ` +
        '(6 × the function timeout + the batching window), or a message may be delivered again while its call still runs.',
    );
    return;
  }
  const cfn = queue.node.defaultChild as sqs.CfnQueue;
  const visibility = cfn.visibilityTimeout ?? 30; // the SQS default
  if (!Token.isUnresolved(visibility)) {
    if (visibility < functionTimeout) {
      fail(
        '`queue` must have a visibility timeout of at least the function timeout (`timeout` + `margin`), ' +
          `got: visibility timeout ${visibility} s, function timeout ${functionTimeout} s.`,
        scope,
      );
    }
    if (visibility < recommended) {
      Annotations.of(scope).addWarningV2(
        'cdk-tool-handler:queueVisibilityTimeoutShort',
        `The visibility timeout of \`queue\` is ${visibility} s; AWS recommends at least ${recommended} s ` +
          '(6 × the function timeout + the batching window), so that a message is not delivered again while its call still runs.',
      );
    }
  }
  if (queue.deadLetterQueue === undefined) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:queueWithoutDeadLetterQueue',
      '`queue` has no dead-letter queue: a call the handler reports failed is received again until the message expires.',
    );
  }
}

function encryption(key: kms.IKey | undefined, fallback: sqs.QueueEncryption): Partial<sqs.QueueProps> {
  return key
    ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: key }
    : { encryption: fallback };
}

/**
 * Content-based deduplication: SQS drops a message whose body equals one sent in the last 5 minutes
 * (unless it carries its own `MessageDeduplicationId`), so identical calls need distinct
 * `run_id`/`call_id` to stay distinct (documented on the `fifo` prop).
 */
function fifo(isFifo: boolean): Partial<sqs.QueueProps> {
  return isFifo ? { fifo: true, contentBasedDeduplication: true } : {};
}

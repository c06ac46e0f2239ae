import { Annotations, ArnFormat, Duration, Lazy, Names, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { fail } from '../errors';
import { eventBridgeKeyStatement, eventBridgeSendStatement } from '../permissions';

/**
 * EventBridge sending into the construct's queues (the resume rule into the tool queue, every rule's
 * failed deliveries into the event dead-letter queue), for the construct's own rules only.
 *
 * Without a customer managed key, aws-cdk-lib's targets already allow it for the one rule
 * (`aws:SourceArn`). With one, aws-cdk-lib drops that condition, because a key policy that named
 * the rule would make a cycle (key → rule → queue → key), and grants EventBridge the key with no
 * condition at all: any rule in the account could then send tool calls and resumes. So for a queue
 * encrypted with a customer managed key, the queue policy and the key policy name each rule by an
 * ARN built from a fixed rule name (no reference to the rule, hence no cycle), and the key's grant
 * also names the queues it encrypts for (`kms:EncryptionContext:aws:sqs:arn`).
 */

export interface QueueTargetProps {
  /** The bus the rule is on. @default - the default bus */
  readonly bus?: events.IEventBus;
  readonly message: events.RuleTargetInput;
  /** FIFO queues only. @default - none */
  readonly messageGroupId?: string;
  readonly deadLetterQueue: sqs.IQueue;
  readonly retryAttempts: number;
  readonly maxEventAge: Duration;
}

/**
 * A rule target that sends to `queue`, open to that rule only, also when the queue has a customer
 * managed key. `scope` is the tool handler: its key statement lists its rules.
 */
export function queueTarget(scope: Construct, queue: sqs.IQueue, props: QueueTargetProps): events.IRuleTarget {
  if (!queue.encryptionMasterKey) return new targets.SqsQueue(queue, props);
  return {
    bind(rule: events.IRule): events.RuleTargetConfig {
      const ruleArn = fixedRuleArn(rule, props.bus);
      allowRuleToSend(scope, ruleArn, queue, ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl']);
      allowRuleToSend(scope, ruleArn, props.deadLetterQueue, ['sqs:SendMessage']);
      return {
        arn: queue.queueArn,
        input: props.message,
        targetResource: queue,
        sqsParameters: props.messageGroupId === undefined ? undefined : { messageGroupId: props.messageGroupId },
        deadLetterConfig: { arn: props.deadLetterQueue.queueArn },
        retryPolicy: { maximumRetryAttempts: props.retryAttempts, maximumEventAgeInSeconds: props.maxEventAge.toSeconds() },
      };
    },
  };
}

/**
 * For a rule on `bus` whose target is not a queue (a function, a topic): its failed deliveries go
 * to `deadLetterQueue`, whose policy aws-cdk-lib's target already opens to the rule; when that queue
 * has a customer managed key, the key is opened to the rule too, by its fixed name.
 */
export function allowDeadLetters(scope: Construct, rule: events.Rule, bus: events.IEventBus | undefined, deadLetterQueue: sqs.IQueue): void {
  const key = deadLetterQueue.encryptionMasterKey;
  if (key) grantsOf(scope, key).allow(fixedRuleArn(rule, bus), deadLetterQueue);
}

/**
 * The queue's policy, and its key's, let EventBridge send for the rule of `ruleArn` only. An imported
 * queue's policy cannot be changed here (`cdk-tool-handler:resumeQueuePolicy` says what it needs).
 */
function allowRuleToSend(scope: Construct, ruleArn: string, queue: sqs.IQueue, actions: string[]): void {
  queue.addToResourcePolicy(eventBridgeSendStatement(queue, ruleArn, actions));
  if (queue.encryptionMasterKey) grantsOf(scope, queue.encryptionMasterKey).allow(ruleArn, queue);
}

/**
 * The ARN of `rule` (on `bus`) from its name, which is made fixed here when the rule has none:
 * `arn:<partition>:events:<region>:<account>:rule/[<bus>/]<name>` (the default bus is not named).
 */
function fixedRuleArn(rule: events.IRule, bus: events.IEventBus | undefined): string {
  const cfn = rule.node.defaultChild as events.CfnRule;
  const stack = Stack.of(rule);
  // A rule made without `ruleName` has a lazy name that resolves to nothing: give it one.
  const given: unknown = stack.resolve(cfn.name);
  cfn.name = given === undefined ? Names.uniqueResourceName(rule, { maxLength: 64 }) : (given as string);
  if (typeof given !== 'string' && given !== undefined) {
    fail(
      'A rule that sends into a queue encrypted with a customer managed key needs a name known at synth (`ruleName`), ' +
        "so that the key's policy can name it without a circular dependency; got: a token.",
      rule,
    );
  }
  const busName = bus === undefined ? undefined : literalBusName(bus);
  const resourceName = busName === undefined || busName === 'default' ? cfn.name : `${busName}/${cfn.name}`;
  return stack.formatArn({ service: 'events', resource: 'rule', resourceName });
}

/**
 * A bus's name without a reference to the bus resource where synth knows it (a bus encrypted with
 * the same key would otherwise make a cycle through the key policy): a bus of this app has a name
 * generated at synth.
 */
function literalBusName(bus: events.IEventBus): string {
  if (!(bus instanceof events.EventBus)) return bus.eventBusName;
  const name: unknown = Stack.of(bus).resolve((bus.node.defaultChild as events.CfnEventBus).name);
  return typeof name === 'string' ? name : bus.eventBusName;
}

/**
 * One key policy statement per key and tool handler: the rules that may use the key, and the queues
 * it encrypts for them, each named without a reference to its resource.
 */
class KeyGrants {
  private readonly rules = new Map<string, string>();
  private readonly queues = new Map<string, string>();

  constructor(private readonly scope: Construct, key: kms.IKey) {
    const statement = eventBridgeKeyStatement(
      `CdkToolHandlerEventBridge${Names.uniqueId(scope)}`,
      Lazy.list({ produce: () => [...this.rules.values()] }),
      Lazy.list({ produce: () => [...this.queues.values()] }),
    );
    const { statementAdded } = key.addToResourcePolicy(statement);
    if (!statementAdded) {
      Annotations.of(scope).addWarningV2(
        'cdk-tool-handler:encryptionKeyPolicy',
        'The key policy of the imported key that encrypts the queues EventBridge sends to cannot be changed here: it must ' +
          "allow the service principal events.amazonaws.com kms:Decrypt and kms:GenerateDataKey for this construct's rules " +
          '(aws:SourceArn) and queues (kms:EncryptionContext:aws:sqs:arn) only, or EventBridge cannot put resumes on the tool ' +
          'queue nor undeliverable events into the event dead-letter queue.',
      );
    }
  }

  allow(ruleArn: string, queue: sqs.IQueue): void {
    const stack = Stack.of(this.scope);
    const queueArn = literalQueueArn(queue);
    if (queueArn === undefined) {
      fail(
        `The queue ${queue.node.path} is encrypted with a customer managed key and EventBridge sends to it, so the key's policy ` +
          'names it, which needs a queue name known at synth: give it a `queueName` (an imported queue: import it by a literal ARN).',
        this.scope,
      );
    }
    this.rules.set(JSON.stringify(stack.resolve(ruleArn)), ruleArn);
    this.queues.set(JSON.stringify(stack.resolve(queueArn)), queueArn);
  }
}

/** A queue's ARN without a reference to the queue resource, where synth knows its name. */
function literalQueueArn(queue: sqs.IQueue): string | undefined {
  if (queue instanceof sqs.Queue) {
    const name: unknown = Stack.of(queue).resolve((queue.node.defaultChild as sqs.CfnQueue).queueName);
    return typeof name === 'string' ? Stack.of(queue).formatArn({ service: 'sqs', resource: name, arnFormat: ArnFormat.NO_RESOURCE_NAME }) : undefined;
  }
  return Token.isUnresolved(queue.queueArn) ? undefined : queue.queueArn;
}

const grantsByScope = new WeakMap<Construct, Map<kms.IKey, KeyGrants>>();

function grantsOf(scope: Construct, key: kms.IKey): KeyGrants {
  let byKey = grantsByScope.get(scope);
  if (!byKey) grantsByScope.set(scope, (byKey = new Map()));
  let grants = byKey.get(key);
  if (!grants) byKey.set(key, (grants = new KeyGrants(scope, key)));
  return grants;
}

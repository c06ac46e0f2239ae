/**
 * A customer managed key must not open the construct's queues to every rule in the account: the
 * synthesized queue and key policies, evaluated by the models of queue-iam.ts, let EventBridge send
 * (and use the key) for the construct's own rules only, named by the ARN AWS gives them (their
 * fixed names). aws-cdk-lib's SQS target drops `aws:SourceArn` for a KMS-encrypted queue and grants
 * the key with no condition: on that design each foreign rule below was allowed.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ToolHandler } from '../../lib';
import { ENV as WHERE, props } from './helpers';
import { evaluateKeyUse, evaluateSend, type ServiceRequest } from './queue-iam';
import { concrete } from './template-values';

function keyed(id: string, fifo = false) {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), id, { env: WHERE });
  const encryptionKey = new kms.Key(stack, 'Key');
  const replyBus = new events.EventBus(stack, 'Replies');
  const tools = new ToolHandler(stack, 'Tools', props({
    encryptionKey,
    fifo,
    replyBus,
    approvalNotifications: new sns.Topic(stack, 'Approvers'),
    eventSources: [{ eventPattern: { source: ['agent'] } }, { eventBus: replyBus, eventPattern: { detailType: ['Call'] } }],
  }));
  // Synthesizing checks for a dependency cycle (key → rule → queue → key) too.
  const template = Template.fromStack(stack).toJSON();
  const resources = template.Resources as Record<string, any>;
  const value = (v: unknown) => concrete(v, resources, WHERE) as any;
  const idOf = (c: { node: { defaultChild?: unknown } }) => stack.getLogicalId(c.node.defaultChild as any);
  const queuePolicy = (queue: sqs.IQueue) => {
    const id = idOf(queue as sqs.Queue);
    const policy = Object.values(resources).find((r) => r.Type === 'AWS::SQS::QueuePolicy' && r.Properties.Queues.some((q: any) => q.Ref === id));
    return value(policy.Properties.PolicyDocument.Statement) as any[];
  };
  const rules = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Events::Rule');
  return {
    stack,
    tools,
    keyPolicy: value(resources[idOf(encryptionKey)].Properties.KeyPolicy.Statement) as any[],
    queue: { arn: value({ 'Fn::GetAtt': [idOf(tools.queue as sqs.Queue), 'Arn'] }) as string, policy: queuePolicy(tools.queue) },
    eventDlq: { arn: value({ 'Fn::GetAtt': [idOf(tools.eventDeadLetterQueue as sqs.Queue), 'Arn'] }) as string, policy: queuePolicy(tools.eventDeadLetterQueue) },
    /** Every rule of the stack, by the ARN AWS gives it (its bus's name and its own). */
    ruleArns: Object.fromEntries(rules.map(([id]) => [id, value({ 'Fn::GetAtt': [id, 'Arn'] }) as string])),
  };
}

const plain = keyed('Keyed');
const fifo = keyed('KeyedFifo', true);
const from = (sourceArn: string, sourceAccount = WHERE.account): ServiceRequest => ({ service: 'events.amazonaws.com', sourceArn, sourceAccount });
const FOREIGN = [
  ['a rule of another stack in the account', `arn:aws:events:${WHERE.region}:${WHERE.account}:rule/SomeoneElsesRule`],
  ['a rule on the resume bus the construct did not make', ''],
  ['a rule of another account', `arn:aws:events:${WHERE.region}:210987654321:rule/Attacker`],
] as const;

describe.each([
  ['a standard tool queue', plain],
  ['a FIFO tool queue', fifo],
])('%s with encryptionKey', (_, built) => {
  const resumeRule = Object.keys(built.ruleArns).find((id) => id.startsWith('ToolsResumeRule'))!;
  const resumeBusRuleArn = built.ruleArns[resumeRule];
  const foreign = FOREIGN.map(([name, arn]) => [name, arn || resumeBusRuleArn.replace(/[^/]+$/, 'NotOurs')] as const);

  test('every rule has a name fixed at synth, so its ARN is known without a reference to it', () => {
    for (const arn of Object.values(built.ruleArns)) expect(arn).toMatch(/^arn:aws:events:us-east-1:123456789012:rule\/([A-Za-z0-9]+\/)?[A-Za-z0-9]+$/);
    expect(built.queue.arn).toMatch(/^arn:aws:sqs:us-east-1:123456789012:[A-Za-z0-9]+(\.fifo)?$/);
  });

  test('the resume rule sends resumes to the tool queue and may use the key for it', () => {
    expect(evaluateSend(built.queue.policy, built.queue.arn, from(resumeBusRuleArn))).toBe('allowed');
    expect(evaluateKeyUse(built.keyPolicy, built.queue.arn, from(resumeBusRuleArn))).toBe('allowed');
  });

  test.each(foreign)('%s can neither send tool calls or resumes to the tool queue nor use the key for it', (_, arn) => {
    expect(evaluateSend(built.queue.policy, built.queue.arn, from(arn, arn.split(':')[4]))).not.toBe('allowed');
    expect(evaluateKeyUse(built.keyPolicy, built.queue.arn, from(arn, arn.split(':')[4]))).not.toBe('allowed');
  });

  test("every rule of the construct keeps its failed deliveries in the event dead-letter queue, and no other rule can", () => {
    expect(Object.keys(built.ruleArns).length).toBe(5); // two event sources, two notifications, the resume rule
    for (const arn of Object.values(built.ruleArns)) {
      expect({ arn, send: evaluateSend(built.eventDlq.policy, built.eventDlq.arn, from(arn)) }).toEqual({ arn, send: 'allowed' });
      expect({ arn, key: evaluateKeyUse(built.keyPolicy, built.eventDlq.arn, from(arn)) }).toEqual({ arn, key: 'allowed' });
    }
    for (const [, arn] of foreign) {
      expect(evaluateSend(built.eventDlq.policy, built.eventDlq.arn, from(arn))).not.toBe('allowed');
      expect(evaluateKeyUse(built.keyPolicy, built.eventDlq.arn, from(arn))).not.toBe('allowed');
    }
  });

  test('the key serves EventBridge for these queues only: not for another queue the same key encrypts', () => {
    const other = `arn:aws:sqs:${WHERE.region}:${WHERE.account}:AnotherQueueOfTheKey`;
    expect(evaluateKeyUse(built.keyPolicy, other, from(resumeBusRuleArn))).not.toBe('allowed');
  });
});

describe('a given queue of this app with its own key', () => {
  const given = (id: string, queueName?: string) => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), id, { env: WHERE });
    const encryptionMasterKey = new kms.Key(stack, 'QueueKey');
    const queue = new sqs.Queue(stack, 'Calls', { encryptionMasterKey, queueName, visibilityTimeout: Duration.minutes(7) });
    return { stack, tools: new ToolHandler(stack, 'Tools', props({ queue })), encryptionMasterKey };
  };

  test('without a name known at synth: a synth error that says to name it (the key policy must name the queue)', () => {
    expect(() => given('Unnamed')).toThrow(
      /^Unnamed\/Tools: The queue Unnamed\/Calls is encrypted with a customer managed key and EventBridge sends to it, so the key's policy names it, which needs a queue name known at synth: give it a `queueName`/,
    );
  });

  test('with a name: only the resume rule may send there and use its key', () => {
    const { stack, encryptionMasterKey } = given('Named', 'calls');
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, any>;
    const keyPolicy = concrete(resources[stack.getLogicalId(encryptionMasterKey.node.defaultChild as any)].Properties.KeyPolicy.Statement, resources, WHERE) as any[];
    const resumeRule = Object.keys(resources).find((id) => id.startsWith('ToolsResumeRule'))!;
    const arn = concrete({ 'Fn::GetAtt': [resumeRule, 'Arn'] }, resources, WHERE) as string;
    const queueArn = `arn:aws:sqs:${WHERE.region}:${WHERE.account}:calls`;
    expect(evaluateKeyUse(keyPolicy, queueArn, from(arn))).toBe('allowed');
    expect(evaluateKeyUse(keyPolicy, queueArn, from(arn.replace(/[^/]+$/, 'NotOurs')))).not.toBe('allowed');
  });
});

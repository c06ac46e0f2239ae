/**
 * Two owners on one reply bus, as attacks. Handler A's REAL bundle publishes its replies (a pending
 * refund whose args hold a card number); handler B's synthesized notification rules are evaluated
 * against those events by the local run's rule stand-in (local/notifications.ts), and A's roles try
 * B's source under the IAM model (events-iam.ts). On the design before owners named their reply
 * events, every handler published `cdk-tool-handler` and every notification rule matched it: B's
 * approvers were told of A's requests, args included, and A's role could fake B's.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import { ENV } from '../../lambda/construct-contract';
import { ToolHandler } from '../../lib';
import type { BusEvent } from '../../local/endpoints';
import { Resolver } from '../../local/intrinsics';
import { matchesPattern } from '../../local/event-pattern';
import { eventEnvelope, notificationsFor, topicRules } from '../../local/notifications';
import { invokeBundleWithOutput, sdkOnlyNodePath, synthesizedFunction } from '../support/bundle-child';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { startEventBridgeEndpoint, type EventBridgeEndpoint } from '../support/eventbridge-endpoint';
import { startLambdaHost, type LambdaHost } from '../support/lambda-host';
import { LOCAL_AWS_ENV } from '../support/local-aws';
import { evaluatePutEvents, type PutEventsRequest } from './events-iam';
import { ENV as WHERE } from './helpers';
import { concrete } from './template-values';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');
const CARD = '4111 1111 1111 1111';

let stack: Stack;
let a: ToolHandler;
let b: ToolHandler;
let template: Template;
let resources: Record<string, any>;
let busId: string;
let host: LambdaHost;
let bus: EventBridgeEndpoint;
/** What A's bundle put on the bus, as sent. */
let published: BusEvent[] = [];

beforeAll(async () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'reply-walls-'));
  stack = new Stack(new App({ outdir }), 'SharedBus', { env: WHERE });
  const replyBus = new events.EventBus(stack, 'Replies');
  const shared = { entry: ENTRY, tools: ['charge', 'refund'], replyBus, notifyWithArgs: true };
  a = new ToolHandler(stack, 'A', {
    ...shared,
    owner: 'alpha',
    approvalNotifications: new sns.Topic(stack, 'AlphaApprovers'),
    // A rule on the reply bus for calls of any source: the construct keeps the replies out of it.
    eventSources: [{ eventBus: replyBus, eventPattern: { detailType: ['Tool Call Succeeded', 'Tool Approval Requested'] } }],
  });
  b = new ToolHandler(stack, 'B', { ...shared, owner: 'beta', approvalNotifications: new sns.Topic(stack, 'BetaApprovers') });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
  busId = stack.getLogicalId(replyBus.node.defaultChild as events.CfnEventBus);

  const nodePath = sdkOnlyNodePath();
  const table = await createTestTable();
  const local = { ...LOCAL_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(), [ENV.approvalsTable]: table.tableName };
  const engine = synthesizedFunction(template, outdir, a.approvalsEngine);
  host = await startLambdaHost({ engine: { bundle: engine.bundle, env: { ...engine.env, ...local } } }, nodePath);
  bus = await startEventBridgeEndpoint();
  const handler = synthesizedFunction(template, outdir, a.lambdaFunction);
  const env = {
    ...handler.env,
    ...local,
    [ENV.approvalsEngine]: 'engine',
    [ENV.replyBus]: busId,
    AWS_ENDPOINT_URL_LAMBDA: host.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint,
  };
  const run = await invokeBundleWithOutput(
    handler.bundle,
    env,
    [
      { event: { tool: 'refund', args: { orderId: CARD }, run_id: 'r1', call_id: 'c1' }, requestId: 'q1' },
      { event: { tool: 'charge', args: { amount: 5, currency: 'EUR' }, run_id: 'r1', call_id: 'c2' }, requestId: 'q2' },
    ],
    nodePath,
  );
  expect(run.outcomes.map((o) => ('returned' in o ? o.returned.status : o))).toEqual(['pending_approval', 'ok']);
  published = bus.received.map((entry) => ({
    bus: entry.EventBusName ?? 'default',
    source: entry.Source,
    detailType: entry.DetailType,
    detail: JSON.parse(entry.Detail),
    time: new Date().toISOString(),
    entry,
  }));
}, 120_000);

afterAll(async () => {
  await host?.close();
  await bus?.close();
});

describe("A's real events on the shared bus", () => {
  test('name their owner: the source cdk-tool-handler.alpha, and owner in the detail', () => {
    expect(published.map((e) => [e.source, e.detailType, (e.detail as any).owner])).toEqual([
      ['cdk-tool-handler.alpha', 'Tool Approval Requested', 'alpha'],
      ['cdk-tool-handler.alpha', 'Tool Call Succeeded', 'alpha'],
    ]);
  });

  test("reach A's approvers (with the args, as A asked) and never B's", () => {
    const topics = Object.fromEntries(
      ['AlphaApprovers', 'BetaApprovers'].map((id) => [stack.getLogicalId(stack.node.findChild(id).node.defaultChild as sns.CfnTopic), id]),
    );
    const { rules, setAside } = topicRules(template.toJSON() as any, new Resolver(template.toJSON() as any));
    expect(setAside).toEqual([]);
    expect(rules.length).toBe(4); // requested and expired, for each owner
    const sent = published.flatMap((event) => notificationsFor(rules, event).map(({ topic, message }) => ({ topic: topics[topic], message })));
    expect(sent.map((s) => s.topic)).toEqual(['AlphaApprovers']);
    expect(sent[0].message).toContain(CARD);
  });

  test('never come back in as calls through an event source on the reply bus', () => {
    const rule = a.rules[0];
    const pattern = resources[stack.getLogicalId(rule.node.defaultChild as events.CfnRule)].Properties.EventPattern;
    expect(pattern.source).toEqual([{ 'anything-but': { prefix: 'cdk-tool-handler' } }]);
    for (const event of published) expect(matchesPattern(pattern, eventEnvelope(event))).toBe(false);
    expect(matchesPattern(pattern, eventEnvelope({ ...published[1], source: 'orders.app' }))).toBe(true);
  });

  test("B's notification rules match B's source only", () => {
    const patterns = Object.values(resources)
      .filter((r: any) => r.Type === 'AWS::Events::Rule' && r.Properties.Targets.some((t: any) => JSON.stringify(t.Arn).includes('Approvers')))
      .map((r: any) => r.Properties.EventPattern.source);
    expect(patterns.sort()).toEqual([['cdk-tool-handler.alpha'], ['cdk-tool-handler.alpha'], ['cdk-tool-handler.beta'], ['cdk-tool-handler.beta']]);
    // What a user's own rule for one handler's events matches.
    expect([a.replyEventSource, b.replyEventSource]).toEqual(['cdk-tool-handler.alpha', 'cdk-tool-handler.beta']);
  });
});

describe('publishing on the shared bus, under the IAM model (the roles given events:* on * besides)', () => {
  const everything = { Effect: 'Allow', Action: 'events:*', Resource: '*' };
  const value = (v: unknown) => concrete(v, resources, WHERE) as any;
  const busArn = () => value({ 'Fn::GetAtt': [busId, 'Arn'] }) as string;
  const busPolicy = () =>
    Object.values(resources)
      .filter((r: any) => r.Type === 'AWS::Events::EventBusPolicy' && r.Properties.EventBusName.Ref === busId)
      .map((r: any) => value(r.Properties.Statement));
  const roleOf = (role: iam.IRole) => {
    const id = stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
    const statements = Object.values(resources)
      .filter((r: any) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === id))
      .flatMap((r: any) => value(r.Properties.PolicyDocument.Statement));
    const tags = Object.fromEntries((resources[id].Properties.Tags ?? []).map((t: any) => [t.Key, t.Value]));
    return { identity: [...statements, everything], principalArn: value({ 'Fn::GetAtt': [id, 'Arn'] }) as string, principalTags: tags };
  };
  const put = (who: ReturnType<typeof roleOf>, sources: string[], onBus = busArn(), policy = busPolicy()) =>
    evaluatePutEvents(who.identity, policy, { bus: onBus, sources, principalArn: who.principalArn, principalTags: who.principalTags } satisfies PutEventsRequest);
  const expirerOf = (tools: ToolHandler) => (tools.node.findChild('Approvals').node.findChild('ExpirerRole') as iam.IRole);

  test("A's handler role puts A's source, and cannot fake B's (alone, or among its own)", () => {
    const role = roleOf(a.lambdaFunction.role!);
    expect(put(role, ['cdk-tool-handler.alpha'])).toBe('allowed');
    expect(put(role, ['cdk-tool-handler.beta'])).toBe('explicitly denied');
    expect(put(role, ['cdk-tool-handler.alpha', 'cdk-tool-handler.beta'])).toBe('explicitly denied');
    expect(put(role, ['cdk-tool-handler'])).toBe('explicitly denied');
  });

  test("the same holds for A's expirer, and for B's roles against A's source", () => {
    expect(put(roleOf(expirerOf(a)), ['cdk-tool-handler.beta'])).toBe('explicitly denied');
    expect(put(roleOf(expirerOf(a)), ['cdk-tool-handler.alpha'])).toBe('allowed');
    expect(put(roleOf(b.lambdaFunction.role!), ['cdk-tool-handler.alpha'])).toBe('explicitly denied');
    expect(put(roleOf(expirerOf(b)), ['cdk-tool-handler.alpha'])).toBe('explicitly denied');
  });

  test("A's engine and API roles (no publishers) put no reply source at all, not even their own owner's", () => {
    for (const role of [a.approvalsEngine.role!, a.approvalsApi.role!]) {
      expect(put(roleOf(role), ['cdk-tool-handler.alpha'])).toBe('explicitly denied');
      expect(put(roleOf(role), ['orders.app'])).toBe('allowed');
    }
  });

  test('a principal the construct did not make puts no reply source of any owner, and its own sources freely', () => {
    const stranger = { identity: [everything], principalArn: `arn:aws:iam::${WHERE.account}:role/ops`, principalTags: {} };
    for (const source of ['cdk-tool-handler.alpha', 'cdk-tool-handler.beta', 'cdk-tool-handler']) expect(put(stranger, [source])).toBe('explicitly denied');
    expect(put(stranger, ['orders.app'])).toBe('allowed');
  });

  test("on a bus whose policy the construct cannot set (the default bus), A's role still cannot fake B's source", () => {
    const defaultBus = `arn:aws:events:${WHERE.region}:${WHERE.account}:event-bus/default`;
    expect(put(roleOf(a.lambdaFunction.role!), ['cdk-tool-handler.beta'], defaultBus, [])).toBe('explicitly denied');
    expect(put(roleOf(expirerOf(a)), ['cdk-tool-handler.beta'], defaultBus, [])).toBe('explicitly denied');
  });
});

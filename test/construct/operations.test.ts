/**
 * Operations in the template: the namespace on every function, the metric methods, each alarm with its
 * documented default (and each limit's prop, its checks, and how to turn them off), the shared resume
 * path's one alarm, and the dashboard's widgets. That the alarms and the dashboard read metrics the
 * runtime really writes is test/construct/operations-bundles.test.ts.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { ENV } from '../../lambda/construct-contract';
import { ToolHandler, ToolHandlerAlarm, ToolHandlerProps } from '../../lib';
import { ENV as STACK_ENV, props, toolStack, unbundledApp } from './helpers';

function built(overrides: Partial<ToolHandlerProps> = {}, extra?: (stack: Stack) => Partial<ToolHandlerProps>) {
  const { stack, tools } = toolStack(unbundledApp(), 'Ops', overrides, extra);
  return { stack, tools, template: Template.fromStack(stack) };
}

/** The alarms of a template by the last part of their construct path (what a person must do). */
function alarmsOf(stack: Stack, template: Template): Record<string, any> {
  const byLogicalId = template.findResources('AWS::CloudWatch::Alarm');
  const found: Record<string, any> = {};
  for (const construct of stack.node.findAll()) {
    if (!(construct instanceof cloudwatch.Alarm)) continue;
    const id = stack.getLogicalId(construct.node.defaultChild as cloudwatch.CfnAlarm);
    found[construct.node.id] = byLogicalId[id].Properties;
  }
  return found;
}

const defaults = built();
const alarms = alarmsOf(defaults.stack, defaults.template);
const owner = defaults.tools.owner;
const logicalId = (stack: Stack, path: string) => {
  const c = stack.node.findAll().find((x) => x.node.path === `${stack.stackName}/${path}`)!;
  return stack.getLogicalId((c.node.defaultChild ?? c) as any);
};

describe('metrics namespace', () => {
  test('every function (handler, engine, API, expirer) gets TOOL_HANDLER_METRICS_NAMESPACE, CdkToolHandler by default', () => {
    const fns = Object.values(defaults.template.findResources('AWS::Lambda::Function')) as any[];
    expect(fns).toHaveLength(4);
    for (const fn of fns) expect(fn.Properties.Environment.Variables[ENV.metricsNamespace]).toBe('CdkToolHandler');
  });

  test('metricsNamespace sets it, and the alarms read it', () => {
    const { template } = built({ metricsNamespace: 'Orders/Tools' });
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function')) as any[]) {
      expect(fn.Properties.Environment.Variables[ENV.metricsNamespace]).toBe('Orders/Tools');
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'Orders/Tools', MetricName: 'PendingApprovals' });
  });

  test.each(['', ':starts-with-colon', 'AWS/Lambda', 'x'.repeat(256), 'tab\there', ' padded '])('metricsNamespace %j is refused, naming the prop', (namespace) => {
    expect(() => built({ metricsNamespace: namespace })).toThrow(/Ops\/Tools: `metricsNamespace` must be 1 to 255 printable ASCII characters.*got: /);
  });
});

describe('metric methods', () => {
  const { stack, tools } = defaults;
  const config = (metric: cloudwatch.Metric) => stack.resolve(metric.toMetricConfig().metricStat);

  test.each([
    ['metricCalls', 'Calls', 'Sum', () => tools.metricCalls()],
    ['metricFailed', 'Failed', 'Sum', () => tools.metricFailed()],
    ['metricDuration', 'Duration', 'Average', () => tools.metricDuration()],
    ['metricRateLimited', 'RateLimited', 'Sum', () => tools.metricRateLimited()],
    ['metricPendingApprovals', 'PendingApprovals', 'Maximum', () => tools.metricPendingApprovals()],
    ['metricOldestPendingApprovalAge', 'OldestPendingApprovalAge', 'Maximum', () => tools.metricOldestPendingApprovalAge()],
  ])('%s: %s under [Owner], %s over 5 minutes', (_method, name, statistic, metric) => {
    expect(config(metric())).toEqual({
      namespace: 'CdkToolHandler',
      metricName: name,
      dimensions: [{ name: 'Owner', value: owner }],
      statistic,
      period: Duration.minutes(5),
    });
  });

  test('with a tool: under [Owner, Tool]; MetricOptions override the defaults', () => {
    expect(config(tools.metricDuration('add', { statistic: 'p99', period: Duration.minutes(1) }))).toEqual({
      namespace: 'CdkToolHandler',
      metricName: 'Duration',
      dimensions: [
        { name: 'Owner', value: owner },
        { name: 'Tool', value: 'add' },
      ],
      statistic: 'p99',
      period: Duration.minutes(1),
    });
  });

  test('a tool outside `tools` is refused: the handler never counts it per tool', () => {
    expect(() => tools.metricCalls('nope')).toThrow(/Ops\/Tools: metricCalls: `tool` must be one of `tools` \(add, refund\).*got: "nope"/);
    expect(() => tools.metricFailed('nope')).toThrow(/metricFailed/);
    expect(() => tools.metricRateLimited('nope')).toThrow(/metricRateLimited/);
  });
});

describe('alarms, on by default', () => {
  test('one per thing a person must act on, each named for it and telling what to do', () => {
    expect(Object.keys(alarms).sort()).toEqual([
      'ClearToolQueueBacklog',
      'DecidePendingApprovals',
      'FixApprovalsExpirer',
      'FixFailingToolCalls',
      'RaiseHandlerConcurrency',
      'RedriveEventDeadLetterQueue',
      'RedriveResumeDeadLetters',
      'RedriveToolDeadLetterQueue',
      'RestoreApprovalsExpirer',
    ]);
    expect(defaults.tools.alarms).toHaveLength(9);
    for (const alarm of Object.values(alarms)) expect(alarm.AlarmDescription.length).toBeGreaterThan(100);
    for (const alarm of Object.values(alarms)) expect(alarm.AlarmActions).toBeUndefined();
  });

  const stack = defaults.stack;
  const queueName = (path: string) => [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(stack, path), 'QueueName'] } }];
  const functionName = (path: string) => [{ Name: 'FunctionName', Value: { Ref: logicalId(stack, path) } }];
  const deadLetters = (path: string) => ({
    Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible', Dimensions: queueName(path), Statistic: 'Maximum', Threshold: 1,
  });
  test.each([
    ['RedriveToolDeadLetterQueue', "a message in the tool queue's dead-letter queue", deadLetters('Tools/DeadLetterQueue')],
    ['RedriveEventDeadLetterQueue', 'a message in eventDeadLetterQueue', deadLetters('Tools/EventDeadLetterQueue')],
    ['RedriveResumeDeadLetters', "a message in the resume pipe's dead-letter queue", deadLetters('Tools/ApprovalsTableToolHandlerResume/DeadLetterQueue')],
    ['ClearToolQueueBacklog', 'the oldest tool call 15 minutes old', {
      Namespace: 'AWS/SQS', MetricName: 'ApproximateAgeOfOldestMessage', Dimensions: queueName('Tools/Queue'), Statistic: 'Maximum', Threshold: 900,
    }],
    ['RaiseHandlerConcurrency', 'one throttle of the handler in 5 minutes', {
      Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: functionName('Tools/Function'), Statistic: 'Sum', Threshold: 1,
    }],
    ['FixApprovalsExpirer', 'an error of the expirer in 2 of 3 5-minute periods', {
      Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: functionName('Tools/Approvals/Expirer'), Statistic: 'Sum', Threshold: 1,
      EvaluationPeriods: 3, DatapointsToAlarm: 2,
    }],
    ['DecidePendingApprovals', 'the oldest pending approval at 80% of approvalTtl (7 days)', {
      Namespace: 'CdkToolHandler', MetricName: 'OldestPendingApprovalAge', Dimensions: [{ Name: 'Owner', Value: owner }], Statistic: 'Maximum',
      Threshold: 0.8 * 7 * 24 * 3600,
    }],
  ])('%s: %s, over 5 minutes, missing data not breaching', (id, _what, expected) => {
    expect(alarms[id]).toMatchObject({
      Period: 300, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching', ...expected,
    });
  });

  test('FixFailingToolCalls: 100 * Failed / Calls above 10 over 5 minutes', () => {
    const alarm = alarms.FixFailingToolCalls;
    expect(alarm).toMatchObject({ Threshold: 10, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1, TreatMissingData: 'notBreaching' });
    const [expression, ...stats] = alarm.Metrics;
    expect(expression).toMatchObject({ Expression: '100 * failed / calls', ReturnData: true });
    expect(stats.map((m: any) => [m.Id, m.MetricStat])).toEqual(
      [['failed', 'Failed'], ['calls', 'Calls']].map(([id, name]) => [
        id,
        { Metric: { Namespace: 'CdkToolHandler', MetricName: name, Dimensions: [{ Name: 'Owner', Value: owner }] }, Period: 300, Stat: 'Sum' },
      ]),
    );
  });

  test("RestoreApprovalsExpirer: the expirer's figures missing for 15 minutes (3 periods of 5, each spanning a 4-minute run): missing data breaching", () => {
    expect(alarms.RestoreApprovalsExpirer).toMatchObject({
      Namespace: 'CdkToolHandler',
      MetricName: 'PendingApprovals',
      Dimensions: [{ Name: 'Owner', Value: owner }],
      Statistic: 'SampleCount',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 3,
      TreatMissingData: 'breaching',
    });
  });

  test('DecidePendingApprovals follows approvalTtl: 80% of 10 hours', () => {
    const { stack: s, template } = built({ approvalTtl: Duration.hours(10) });
    expect(alarmsOf(s, template).DecidePendingApprovals.Threshold).toBe(28_800);
  });

  test('each limit is a prop', () => {
    const { stack: s, template } = built({
      deadLetterAlarmThreshold: 5,
      queueAgeAlarmThreshold: Duration.minutes(30),
      failedCallsAlarmThreshold: 2.5,
      throttlesAlarmThreshold: 20,
      expirerErrorsAlarmThreshold: 3,
      expirerSilenceAlarmThreshold: Duration.minutes(30),
      pendingApprovalAgeAlarmThreshold: Duration.days(1),
    });
    const got = alarmsOf(s, template);
    expect(Object.fromEntries(Object.entries(got).map(([id, a]) => [id, [a.Threshold, a.EvaluationPeriods]]))).toEqual({
      RedriveToolDeadLetterQueue: [5, 1],
      RedriveEventDeadLetterQueue: [5, 1],
      RedriveResumeDeadLetters: [5, 1],
      ClearToolQueueBacklog: [1800, 1],
      FixFailingToolCalls: [2.5, 1],
      RaiseHandlerConcurrency: [20, 1],
      FixApprovalsExpirer: [3, 3],
      RestoreApprovalsExpirer: [1, 6],
      DecidePendingApprovals: [86_400, 1],
    });
  });

  test.each([
    ['deadLetterAlarmThreshold 0', { deadLetterAlarmThreshold: 0 }, /`deadLetterAlarmThreshold` must be a whole number of at least 1, got: 0/],
    ['throttlesAlarmThreshold 1.5', { throttlesAlarmThreshold: 1.5 }, /`throttlesAlarmThreshold` must be a whole number of at least 1, got: 1.5/],
    ['expirerErrorsAlarmThreshold -1', { expirerErrorsAlarmThreshold: -1 }, /`expirerErrorsAlarmThreshold` must be a whole number/],
    ['failedCallsAlarmThreshold 0', { failedCallsAlarmThreshold: 0 }, /`failedCallsAlarmThreshold` must be a percent of calls, more than 0 and at most 100, got: 0/],
    ['failedCallsAlarmThreshold 101', { failedCallsAlarmThreshold: 101 }, /`failedCallsAlarmThreshold`.*got: 101/],
    ['queueAgeAlarmThreshold 30 s', { queueAgeAlarmThreshold: Duration.seconds(30) }, /`queueAgeAlarmThreshold` must be whole seconds, at least 60 s, got: 30 seconds/],
    ['expirerSilenceAlarmThreshold 5 min', { expirerSilenceAlarmThreshold: Duration.minutes(5) }, /`expirerSilenceAlarmThreshold` must be whole seconds, at least 600 s/],
    ['expirerSilenceAlarmThreshold 12 min', { expirerSilenceAlarmThreshold: Duration.minutes(12) }, /`expirerSilenceAlarmThreshold` must be a whole number of 5-minute periods/],
    ['pendingApprovalAgeAlarmThreshold = approvalTtl', { pendingApprovalAgeAlarmThreshold: Duration.days(7) }, /`pendingApprovalAgeAlarmThreshold` must be less than `approvalTtl`.*604800 s/],
    ['pendingApprovalAgeAlarmThreshold 1.5 s', { pendingApprovalAgeAlarmThreshold: Duration.millis(1500) }, /`pendingApprovalAgeAlarmThreshold` must be whole seconds/],
  ])('%s is refused, naming the prop', (_what, overrides, message) => {
    expect(() => built(overrides as Partial<ToolHandlerProps>)).toThrow(message);
  });

  test('alarmActions: every alarm goes there', () => {
    const { stack: s, template } = built({}, (st) => ({ alarmActions: [new actions.SnsAction(new sns.Topic(st, 'Oncall'))] }));
    const topic = { Ref: logicalId(s, 'Oncall') };
    for (const [id, alarm] of Object.entries(alarmsOf(s, template))) expect({ id, actions: alarm.AlarmActions }).toEqual({ id, actions: [topic] });
  });

  test.each(Object.values(ToolHandlerAlarm))('disabledAlarms: [%s] leaves that alarm out and every other in', (left) => {
    const every = defaults;
    const without = built({ disabledAlarms: [left] });
    const ids = (b: typeof every) => Object.keys(alarmsOf(b.stack, b.template)).sort();
    expect(ids(every)).toContain(left);
    expect(ids(without)).toEqual(ids(every).filter((id) => id !== left));
    expect(without.tools.alarms.map((alarm) => alarm.node.id)).not.toContain(left);
  });

  test('alarms: false turns every alarm off (the metric methods stay)', () => {
    const { tools, template } = built({ alarms: false });
    template.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    expect(tools.alarms).toEqual([]);
    expect(tools.metricCalls()).toBeInstanceOf(cloudwatch.Metric);
  });

  test('a queue given: no alarm on its dead-letter queue, which the construct does not own', () => {
    const { stack: s, template } = built({}, (st) => {
      const dlq = new sqs.Queue(st, 'TheirDlq');
      return { queue: new sqs.Queue(st, 'Theirs', { visibilityTimeout: Duration.minutes(10), deadLetterQueue: { queue: dlq, maxReceiveCount: 3 } }) };
    });
    expect(Object.keys(alarmsOf(s, template))).not.toContain('RedriveToolDeadLetterQueue');
    expect(alarmsOf(s, template).ClearToolQueueBacklog.Dimensions).toEqual([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(s, 'Theirs'), 'QueueName'] } }]);
  });

  test("no resume path of this app (autoResume off, or another app's resume bus): no resume alarm", () => {
    const off = built({ autoResume: false });
    expect(Object.keys(alarmsOf(off.stack, off.template))).not.toContain('RedriveResumeDeadLetters');
    const elsewhere = built({}, (st) => ({ approvalsResumeBus: new events.EventBus(st, 'TheirResumeBus') }));
    expect(Object.keys(alarmsOf(elsewhere.stack, elsewhere.template))).not.toContain('RedriveResumeDeadLetters');
  });

  test("handlers sharing a table: the resume path's one alarm, beside it, goes to each handler's actions", () => {
    const stack2 = new Stack(unbundledApp(), 'Shared', { env: STACK_ENV });
    const one = new sns.Topic(stack2, 'One');
    const two = new sns.Topic(stack2, 'Two');
    const first = new ToolHandler(stack2, 'First', props({ alarmActions: [new actions.SnsAction(one)] }));
    const second = new ToolHandler(stack2, 'Second', props({ approvalsTable: first.approvalsTable, alarmActions: [new actions.SnsAction(two)] }));
    const template = Template.fromStack(stack2);
    const resume = Object.entries(template.findResources('AWS::CloudWatch::Alarm')).filter(([id]) => id.includes('RedriveResumeDeadLetters'));
    expect(resume).toHaveLength(1);
    expect(resume[0][0]).toMatch(/^FirstApprovalsTableToolHandlerResumeRedriveResumeDeadLetters/);
    expect((resume[0][1] as any).Properties.AlarmActions).toEqual([{ Ref: logicalId(stack2, 'One') }, { Ref: logicalId(stack2, 'Two') }]);
    expect(first.alarms.filter((a) => a.node.id === 'RedriveResumeDeadLetters')).toEqual(second.alarms.filter((a) => a.node.id === 'RedriveResumeDeadLetters'));
    template.resourceCountIs('AWS::CloudWatch::Alarm', 17);
  });
});

describe('dashboard', () => {
  test('off by default', () => {
    defaults.template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    expect(defaults.tools.dashboard).toBeUndefined();
  });

  test('dashboard: true: per tool calls, failures, duration; approvals; pending; the queue; every dead-letter queue; the latest failures; the alarms', () => {
    const { stack: s, tools, template } = built({ dashboard: true });
    expect(tools.dashboard).toBeDefined();
    const [, parts] = (Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as any).Properties.DashboardBody['Fn::Join'];
    const text = parts.map((p: unknown) => (typeof p === 'string' ? p : `<${JSON.stringify(p)}>`)).join('');
    const body = JSON.parse(text.replace(/<(\{.*?\})>/g, (_: string, ref: string) => `<${JSON.parse(ref).Ref ?? 'token'}>`));
    expect(body.widgets.map((w: any) => w.properties.title)).toEqual([
      'Calls per tool',
      'Failed calls per tool',
      'Duration per tool (ms)',
      'Approvals',
      'Pending approvals',
      'Tool queue',
      'Dead-letter queues (messages)',
      'Latest failed calls',
      'Alarms',
    ]);
    const metricsOf = (title: string) => body.widgets.find((w: any) => w.properties.title === title).properties.metrics;
    expect(metricsOf('Duration per tool (ms)').map((m: any[]) => `${m[5]} ${m[6].stat}`)).toEqual(['add p50', 'refund p50', 'add p99', 'refund p99']);
    expect(metricsOf('Dead-letter queues (messages)').map((m: any[]) => m[m.length - 1].label)).toEqual(['tool calls', 'event-borne calls', 'resume pipe']);
    const logs = body.widgets.find((w: any) => w.type === 'log').properties;
    expect(logs.view).toBe('table');
    expect(logs.query).toBe(
      `SOURCE '<${logicalId(s, 'Tools/LogGroup')}>' | fields @timestamp, tool, error.type, error.message, run_id, call_id\n` +
        "| filter message = 'tool call' and ispresent(error.type)\n| sort @timestamp desc\n| limit 50",
    );
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardBody: Match.anyValue() });
  });
});

import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ToolHandlerAlarm } from '../options/tool-handler-alarm';
import { HandlerMetrics, METRIC_PERIOD } from './metrics';
import { AlarmLimits } from './settings';

/** A dead-letter queue the construct owns, and what its messages are. */
export interface OwnedDeadLetterQueue {
  /** The alarm's construct id: what to do. */
  readonly id: string;
  readonly queue: sqs.IQueue;
  /** What lands there and what to do about it (the alarm's description). */
  readonly description: string;
}

export interface AlarmsOptions {
  readonly metrics: HandlerMetrics;
  readonly limits: AlarmLimits;
  readonly actions: cloudwatch.IAlarmAction[];
  /** Construct ids of the alarms left out. */
  readonly disabled: ReadonlySet<string>;
  readonly handler: lambda.IFunction;
  readonly expirer: lambda.IFunction;
  readonly queue: sqs.IQueue;
  /** The handler's own dead-letter queues. */
  readonly deadLetterQueues: OwnedDeadLetterQueue[];
  /** The table's resume path: its one alarm sits in it, shared by the handlers of the table. */
  readonly resumePath?: ResumePath;
}

/** The table's resume path (approvals/auto-resume.ts), as the alarms see it. */
export type ResumePath = Construct & { readonly deadLetterQueue: sqs.IQueue };

const OPERATOR = cloudwatch.ComparisonOperator;
const MISSING = cloudwatch.TreatMissingData;

/**
 * The alarms of one handler, each named for what a person must do and described with
 * why it fired. Missing data is not breaching (no calls, an empty queue), except for the expirer's
 * silence, which is what that alarm is about.
 */
export function createAlarms(scope: Construct, options: AlarmsOptions): cloudwatch.Alarm[] {
  const { metrics, limits } = options;
  const home = new Construct(scope, 'Alarms');
  const alarms: cloudwatch.Alarm[] = [];
  const alarm = (id: string, props: cloudwatch.AlarmProps): void => {
    if (options.disabled.has(id)) return;
    const made = new cloudwatch.Alarm(home, id, props);
    addActions(made, options.actions);
    alarms.push(made);
  };
  const fiveMinutes = { period: METRIC_PERIOD };

  options.deadLetterQueues.forEach((dlq) => alarm(dlq.id, deadLetterAlarm(dlq.queue, limits, dlq.description)));
  if (options.resumePath && !options.disabled.has(RESUME_ALARM_ID)) alarms.push(resumePathAlarm(options.resumePath, limits, options.actions));
  alarm(ToolHandlerAlarm.CLEAR_TOOL_QUEUE_BACKLOG, {
    metric: options.queue.metricApproximateAgeOfOldestMessage(fiveMinutes),
    threshold: limits.queueAgeSeconds,
    comparisonOperator: OPERATOR.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: MISSING.NOT_BREACHING,
    alarmDescription:
      `The oldest tool call on the queue has waited ${Duration.seconds(limits.queueAgeSeconds).toHumanString()} or more: the handler is ` +
      'behind or failing and retrying. Check the throttles and failed-calls alarms, the function\'s errors and concurrency ' +
      '(reserved concurrency, `maxConcurrency`), and whether one call keeps failing until it reaches the dead-letter queue.',
  });
  alarm(ToolHandlerAlarm.FIX_FAILING_TOOL_CALLS, {
    metric: new cloudwatch.MathExpression({
      expression: '100 * failed / calls',
      usingMetrics: { failed: metrics.failed(undefined, fiveMinutes), calls: metrics.calls(undefined, fiveMinutes) },
      period: METRIC_PERIOD,
      label: 'Failed calls (%)',
    }),
    threshold: limits.failedPercent,
    comparisonOperator: OPERATOR.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: MISSING.NOT_BREACHING,
    alarmDescription:
      `More than ${limits.failedPercent}% of tool calls failed over 5 minutes. The latest failures (tool, error type, message, ` +
      'run and call ids) are in the handler\'s log lines with `error` (the dashboard\'s table): fix the failing tool, its ' +
      'permissions or what it calls, or the callers that send bad args.',
  });
  alarm(ToolHandlerAlarm.RAISE_HANDLER_CONCURRENCY, {
    metric: options.handler.metricThrottles({ ...fiveMinutes, statistic: cloudwatch.Stats.SUM }),
    threshold: limits.throttles,
    comparisonOperator: OPERATOR.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: MISSING.NOT_BREACHING,
    alarmDescription:
      'Lambda throttled the tool handler: calls wait on the queue or fail. Raise its reserved concurrency or the ' +
      "account's concurrent executions quota, or lower the queue's `maxConcurrency` so that calls wait instead.",
  });
  alarm(ToolHandlerAlarm.FIX_APPROVALS_EXPIRER, {
    metric: options.expirer.metricErrors({ ...fiveMinutes, statistic: cloudwatch.Stats.SUM }),
    threshold: limits.expirerErrors,
    comparisonOperator: OPERATOR.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    treatMissingData: MISSING.NOT_BREACHING,
    alarmDescription:
      'The approvals expirer failed in 2 of the last 3 5-minute periods: undecided approvals are not marked expired nor ' +
      "announced. Read the error in the expirer's log group (its table permissions, the reply bus, throttling) and fix it.",
  });
  alarm(ToolHandlerAlarm.RESTORE_APPROVALS_EXPIRER, {
    metric: metrics.pendingApprovals({ ...fiveMinutes, statistic: cloudwatch.Stats.SAMPLE_COUNT }),
    threshold: 1,
    comparisonOperator: OPERATOR.LESS_THAN_THRESHOLD,
    evaluationPeriods: limits.expirerSilencePeriods,
    treatMissingData: MISSING.BREACHING,
    alarmDescription:
      `The approvals expirer wrote no figures for ${limits.expirerSilencePeriods * 5} minutes (it runs every 4): its schedule ` +
      'stopped or every run fails, so no approval expires. Check the Expiry schedule (EventBridge Scheduler) and the ' +
      'expirer\'s errors. Right after the first deployment it fires until the first run.',
  });
  alarm(ToolHandlerAlarm.DECIDE_PENDING_APPROVALS, {
    metric: metrics.oldestPendingApprovalAge(fiveMinutes),
    threshold: limits.pendingAgeSeconds,
    comparisonOperator: OPERATOR.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: MISSING.NOT_BREACHING,
    alarmDescription:
      `An approval has waited ${Duration.seconds(limits.pendingAgeSeconds).toHumanString()} or more for a decision and expires ` +
      'undecided at `approvalTtl`: list the pending approvals (`cdk-tool-handler approvals list --status pending --stack <stack>`), then ' +
      'approve or deny them, or tell the approvers.',
  });
  return alarms;
}

function deadLetterAlarm(queue: sqs.IQueue, limits: AlarmLimits, description: string): cloudwatch.AlarmProps {
  return {
    metric: queue.metricApproximateNumberOfMessagesVisible({ period: METRIC_PERIOD, statistic: cloudwatch.Stats.MAXIMUM }),
    threshold: limits.deadLetterMessages,
    comparisonOperator: OPERATOR.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: MISSING.NOT_BREACHING,
    alarmDescription: description,
  };
}

const RESUME_ALARM_ID: string = ToolHandlerAlarm.REDRIVE_RESUME_DEAD_LETTERS;

/**
 * The resume path's alarm: one per path (per table), made by the first handler with alarms on
 * (its limit wins); each handler adds its own actions.
 */
function resumePathAlarm(path: ResumePath, limits: AlarmLimits, actions: cloudwatch.IAlarmAction[]): cloudwatch.Alarm {
  const found = path.node.tryFindChild(RESUME_ALARM_ID) as cloudwatch.Alarm | undefined;
  const alarm =
    found ??
    new cloudwatch.Alarm(
      path,
      RESUME_ALARM_ID,
      deadLetterAlarm(
        path.deadLetterQueue,
        limits,
        'The resume pipe could not put decisions on the resume bus: those approvals were decided but their calls were never ' +
          'resumed. Its dead-letter messages name the stream records; for each decided approval without a result, send ' +
          '{"approval_id": "<id>"} to its handler\'s tool queue, then delete the messages.',
      ),
    );
  addActions(alarm, actions);
  return alarm;
}

/** Actions already on each alarm: a shared alarm takes each action once. */
const added = new WeakMap<cloudwatch.Alarm, Set<cloudwatch.IAlarmAction>>();

function addActions(alarm: cloudwatch.Alarm, actions: cloudwatch.IAlarmAction[]): void {
  const seen = added.get(alarm) ?? new Set<cloudwatch.IAlarmAction>();
  added.set(alarm, seen);
  const fresh = actions.filter((action) => !seen.has(action));
  fresh.forEach((action) => seen.add(action));
  if (fresh.length > 0) alarm.addAlarmAction(...fresh);
}

import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DECISION_DIMENSION } from '../../lambda/metrics/names';
import { HandlerMetrics } from './metrics';

export interface DashboardOptions {
  readonly metrics: HandlerMetrics;
  readonly queue: sqs.IQueue;
  /** Every dead-letter queue of the handler, by label. */
  readonly deadLetterQueues: ReadonlyArray<{ readonly label: string; readonly queue: sqs.IQueue }>;
  /** The handler function's log group: its call lines. */
  readonly logGroup: logs.ILogGroup;
  readonly alarms: cloudwatch.IAlarm[];
}

/**
 * The Logs Insights query of the latest failed calls: the handler's call lines with an `error`
 *, newest first. Their fields are the line's own (written to stdout as JSON).
 */
const LATEST_FAILURES_QUERY = [
  'fields @timestamp, tool, error.type, error.message, run_id, call_id',
  "filter message = 'tool call' and ispresent(error.type)",
  'sort @timestamp desc',
  'limit 50',
];

/**
 * The handler's dashboard: calls, failures and duration (p50, p99) per tool; the
 * approvals requested, decided, expired, pending and the oldest pending's age; the tool queue's depth
 * and age; every dead-letter queue's depth; the latest failed calls; the alarms.
 */
export function createDashboard(scope: Construct, options: DashboardOptions): cloudwatch.Dashboard {
  const { metrics } = options;
  const perTool = (metric: (tool: string) => cloudwatch.IMetric) => metrics.tools.map(metric);
  const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = [], width = 8) =>
    new cloudwatch.GraphWidget({ title, left, right, width, height: 6 });
  const { approved, denied } = DECISION_DIMENSION;

  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard');
  dashboard.addWidgets(
    graph('Calls per tool', perTool((tool) => metrics.calls(tool, { label: tool }))),
    graph('Failed calls per tool', perTool((tool) => metrics.failed(tool, { label: tool }))),
    graph('Duration per tool (ms)', [
      ...perTool((tool) => metrics.duration(tool, { statistic: 'p50', label: `${tool} p50` })),
      ...perTool((tool) => metrics.duration(tool, { statistic: 'p99', label: `${tool} p99` })),
    ]),
  );
  dashboard.addWidgets(
    graph('Approvals', [
      metrics.approvalsRequested({ label: 'requested' }),
      metrics.approvalsDecided(approved, { label: 'approved' }),
      metrics.approvalsDecided(denied, { label: 'denied' }),
      metrics.approvalsExpired({ label: 'expired' }),
    ]),
    graph('Pending approvals', [metrics.pendingApprovals({ label: 'pending' })], [metrics.oldestPendingApprovalAge({ label: 'oldest pending (s)' })]),
    graph(
      'Tool queue',
      [options.queue.metricApproximateNumberOfMessagesVisible({ label: 'messages' })],
      [options.queue.metricApproximateAgeOfOldestMessage({ label: 'oldest message (s)' })],
    ),
  );
  dashboard.addWidgets(
    graph(
      'Dead-letter queues (messages)',
      options.deadLetterQueues.map(({ label, queue }) => queue.metricApproximateNumberOfMessagesVisible({ label })),
    ),
    new cloudwatch.LogQueryWidget({
      title: 'Latest failed calls',
      logGroupNames: [options.logGroup.logGroupName],
      queryLines: LATEST_FAILURES_QUERY,
      view: cloudwatch.LogQueryVisualizationType.TABLE,
      width: 16,
      height: 6,
    }),
  );
  if (options.alarms.length > 0) dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: options.alarms, width: 24 }));
  return dashboard;
}

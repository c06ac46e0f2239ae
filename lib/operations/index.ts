/**
 * Operations: the handler's metrics as aws-cdk-lib `Metric`s, the alarms that ask a
 * person to act, and the dashboard. The runtime writes the figures (lambda/metrics/).
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../lambda/construct-contract';
import { ToolHandlerAlarm } from '../options/tool-handler-alarm';
import { ToolHandlerProps } from '../tool-handler-props';
import { Settings } from '../validation';
import { createAlarms, OwnedDeadLetterQueue, ResumePath } from './alarms';
import { createDashboard } from './dashboard';
import { checkedNamespace, HandlerMetrics } from './metrics';
import { alarmLimits, AlarmLimits } from './settings';

export { HandlerMetrics } from './metrics';

/** The operations props, checked before anything is built. */
export interface OperationsSettings {
  readonly namespace: string;
  /** `undefined` when `alarms` is false. */
  readonly limits?: AlarmLimits;
  readonly actions: cloudwatch.IAlarmAction[];
  /** Alarms left out (`disabledAlarms`), by construct id. */
  readonly disabled: ReadonlySet<string>;
  readonly dashboard: boolean;
}

export function operationsSettings(scope: Construct, props: ToolHandlerProps, settings: Settings): OperationsSettings {
  return {
    namespace: checkedNamespace(scope, props.metricsNamespace),
    limits: props.alarms === false ? undefined : alarmLimits(scope, props, settings.approvalTtlSeconds),
    actions: props.alarmActions ?? [],
    disabled: new Set<string>(props.disabledAlarms ?? []),
    dashboard: props.dashboard ?? false,
  };
}

/** What the operations watch: the handler's parts. */
export interface WatchedParts {
  readonly owner: string;
  readonly tools: readonly string[];
  readonly handler: lambda.Function;
  readonly approvalFunctions: lambda.Function[];
  readonly expirer: lambda.IFunction;
  readonly queue: sqs.IQueue;
  /** The tool queue's dead-letter queue, when known. */
  readonly toolDeadLetterQueue?: sqs.IQueue;
  /** Whether the construct created the tool queue and so owns its dead-letter queue (which then has an alarm). */
  readonly toolQueueCreated: boolean;
  readonly eventDeadLetterQueue: sqs.IQueue;
  /** The table's resume path, when this app made it. */
  readonly resumePath?: ResumePath;
}

export interface Operations {
  readonly metrics: HandlerMetrics;
  readonly alarms: cloudwatch.Alarm[];
  readonly dashboard?: cloudwatch.Dashboard;
}

/** Sets the namespace on every function, then makes the alarms and the dashboard the props ask for. */
export function addOperations(scope: Construct, settings: OperationsSettings, parts: WatchedParts): Operations {
  for (const fn of [parts.handler, ...parts.approvalFunctions]) fn.addEnvironment(ENV.metricsNamespace, settings.namespace);
  const metrics = new HandlerMetrics(scope, settings.namespace, parts.owner, parts.tools);
  const deadLetterQueues: OwnedDeadLetterQueue[] = [
    ...(parts.toolDeadLetterQueue && parts.toolQueueCreated
      ? [{
        id: ToolHandlerAlarm.REDRIVE_TOOL_DEAD_LETTER_QUEUE,
        queue: parts.toolDeadLetterQueue,
        description:
          'Tool calls failed on every receive and were moved to the tool queue\'s dead-letter queue. Read why in the latest ' +
          'failed calls (the handler\'s log lines with `error`), fix the cause, then redrive the messages to the tool queue ' +
          '(SQS: start DLQ redrive).',
      }]
      : []),
    {
      id: ToolHandlerAlarm.REDRIVE_EVENT_DEAD_LETTER_QUEUE,
      queue: parts.eventDeadLetterQueue,
      description:
        'Event-borne calls failed for good: events a rule could not hand to the function, asynchronous invocations that ' +
        'failed after Lambda\'s retries, or resumes the resume rule could not put on the tool queue. Each message\'s ' +
        'attributes say why: fix the cause, then send the calls again (or redrive the messages).',
    },
  ];
  const alarms = settings.limits
    ? createAlarms(scope, {
      metrics,
      limits: settings.limits,
      actions: settings.actions,
      disabled: settings.disabled,
      handler: parts.handler,
      expirer: parts.expirer,
      queue: parts.queue,
      deadLetterQueues,
      resumePath: parts.resumePath,
    })
    : [];
  const dashboard = settings.dashboard
    ? createDashboard(scope, {
      metrics,
      queue: parts.queue,
      deadLetterQueues: [
        ...(parts.toolDeadLetterQueue ? [{ label: 'tool calls', queue: parts.toolDeadLetterQueue }] : []),
        { label: 'event-borne calls', queue: parts.eventDeadLetterQueue },
        ...(parts.resumePath ? [{ label: 'resume pipe', queue: parts.resumePath.deadLetterQueue }] : []),
      ],
      logGroup: parts.handler.logGroup,
      alarms,
    })
    : undefined;
  return { metrics, alarms, dashboard };
}

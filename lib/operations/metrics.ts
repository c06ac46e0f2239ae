import { Duration, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { IConstruct } from 'constructs';
import {
  CALL_METRICS,
  DECISION_METRICS,
  DEFAULT_METRICS_NAMESPACE,
  DIMENSIONS,
  EXPIRY_METRICS,
} from '../../lambda/metrics/names';
import { fail } from '../errors';

/**
 * Every figure a handler's functions write comes in 5-minute periods unless the caller says otherwise;
 * it is also the period of every alarm on them, and the one the expirer's silence counts in.
 */
export const METRIC_PERIOD = Duration.minutes(5);

type Spec = { readonly name: string; readonly unit: string };

/**
 * The metrics of one handler as aws-cdk-lib `Metric`s: its namespace, its owner, and
 * the `Tool` dimension only for allowlisted tools, the only ones the runtime writes it for.
 */
export class HandlerMetrics {
  constructor(
    private readonly scope: IConstruct,
    readonly namespace: string,
    readonly owner: string,
    readonly tools: readonly string[],
  ) {}

  calls(tool: string | undefined, props: cloudwatch.MetricOptions | undefined): cloudwatch.Metric {
    return this.perCall(CALL_METRICS.calls, cloudwatch.Stats.SUM, tool, props, 'metricCalls');
  }

  failed(tool: string | undefined, props: cloudwatch.MetricOptions | undefined): cloudwatch.Metric {
    return this.perCall(CALL_METRICS.failed, cloudwatch.Stats.SUM, tool, props, 'metricFailed');
  }

  duration(tool: string | undefined, props: cloudwatch.MetricOptions | undefined): cloudwatch.Metric {
    return this.perCall(CALL_METRICS.duration, cloudwatch.Stats.AVERAGE, tool, props, 'metricDuration');
  }

  rateLimited(tool: string | undefined, props: cloudwatch.MetricOptions | undefined): cloudwatch.Metric {
    return this.perCall(CALL_METRICS.rateLimited, cloudwatch.Stats.SUM, tool, props, 'metricRateLimited');
  }

  approvalsRequested(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(CALL_METRICS.approvalsRequested, cloudwatch.Stats.SUM, {}, props);
  }

  pendingApprovals(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(EXPIRY_METRICS.pendingApprovals, cloudwatch.Stats.MAXIMUM, {}, props);
  }

  oldestPendingApprovalAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(EXPIRY_METRICS.oldestPendingApprovalAge, cloudwatch.Stats.MAXIMUM, {}, props);
  }

  approvalsExpired(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(EXPIRY_METRICS.approvalsExpired, cloudwatch.Stats.SUM, {}, props);
  }

  /** `decision` `Approved` or `Denied`: under `[Owner, Decision]`; without, every decision under `[Owner]`. */
  approvalsDecided(decision?: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(DECISION_METRICS.approvalsDecided, cloudwatch.Stats.SUM, decision ? { [DIMENSIONS.decision]: decision } : {}, props);
  }

  private perCall(spec: Spec, statistic: string, tool: string | undefined, props: cloudwatch.MetricOptions | undefined, method: string): cloudwatch.Metric {
    if (tool === undefined) return this.metric(spec, statistic, {}, props);
    if (!Token.isUnresolved(tool) && !this.tools.includes(tool)) {
      fail(
        `${method}: \`tool\` must be one of \`tools\` (${this.tools.join(', ')}), the only names the handler counts per tool, got: ${JSON.stringify(tool)}.`,
        this.scope,
      );
    }
    return this.metric(spec, statistic, { [DIMENSIONS.tool]: tool }, props);
  }

  private metric(spec: Spec, statistic: string, dimensions: Record<string, string>, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.namespace,
      metricName: spec.name,
      statistic,
      period: METRIC_PERIOD,
      ...props,
      dimensionsMap: { [DIMENSIONS.owner]: this.owner, ...dimensions, ...props.dimensionsMap },
    });
  }
}

/** `metricsNamespace`, checked: CloudWatch's rules for a namespace (1 to 255 ASCII characters, not `:` first, not `AWS/`). */
export function checkedNamespace(scope: IConstruct, namespace: string | undefined): string {
  if (namespace === undefined) return DEFAULT_METRICS_NAMESPACE;
  if (!Token.isUnresolved(namespace) && (!/^[\x20-\x7e]{1,255}$/.test(namespace) || namespace.startsWith(':') || namespace.startsWith('AWS/') || namespace.trim() !== namespace)) {
    fail(
      '`metricsNamespace` must be 1 to 255 printable ASCII characters, without leading or trailing spaces, not starting with `:` or `AWS/` ' +
        `(CloudWatch's rules for a namespace), got: ${JSON.stringify(namespace)}.`,
      scope,
    );
  }
  return namespace;
}

/**
 * CloudWatch Embedded Metric Format (AWS's "Specification: Embedded metric format"): a JSON log
 * line whose `_aws` member tells CloudWatch Logs which of its root members are metrics and which
 * dimensions. The directive, the constant part, is serialized once per shape of line; a line then
 * costs one timestamp and one string join.
 */
import type { Env } from '../config';
import { ENV } from '../construct-contract';
import { DEFAULT_METRICS_NAMESPACE, type MetricUnit } from './names';

/** One line's metrics: the directive and the root members it names. */
export interface EmbeddedMetrics {
  /** The `CloudWatchMetrics` array, serialized (`directive`). */
  readonly directive: string;
  /** Dimensions (strings) and metric values (numbers). */
  readonly members: Record<string, string | number>;
}

export interface MetricSpec {
  readonly name: string;
  readonly unit: MetricUnit;
}

/** The `CloudWatchMetrics` array of one directive, serialized: namespace, dimension sets, metrics. */
export function directive(namespace: string, dimensionSets: readonly (readonly string[])[], metrics: readonly MetricSpec[]): string {
  return JSON.stringify([
    { Namespace: namespace, Dimensions: dimensionSets, Metrics: metrics.map((metric) => ({ Name: metric.name, Unit: metric.unit })) },
  ]);
}

/**
 * `json`, one serialized object holding the directive's dimensions and metrics as root members, with
 * the `_aws` member added last.
 */
export function embed(json: string, cloudWatchMetrics: string, timestamp: number = Date.now()): string {
  return `${json.slice(0, -1)},"_aws":{"Timestamp":${timestamp},"CloudWatchMetrics":${cloudWatchMetrics}}}`;
}

/** TOOL_HANDLER_METRICS_NAMESPACE, else `CdkToolHandler`. */
export function metricsNamespace(env: Env = process.env): string {
  return env[ENV.metricsNamespace]?.trim() || DEFAULT_METRICS_NAMESPACE;
}

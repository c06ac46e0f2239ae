/**
 * The rules of AWS's "Specification: Embedded metric format" (Amazon CloudWatch User Guide,
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html),
 * written as checks of one log line. Each problem names the rule it breaks. Where the current page
 * and its older revision differ (30 dimension keys per set, was 9; 1 MB per event, was 256 KB) the
 * stricter size and the current key count are checked: the lines here stay far below both.
 */

/** The units a MetricDefinition may name: CloudWatch's `StandardUnit` (MetricDatum), as the spec refers to it. */
export const EMF_UNITS = new Set([
  'Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Kilobits',
  'Megabits', 'Gigabits', 'Terabits', 'Percent', 'Count', 'Bytes/Second', 'Kilobytes/Second', 'Megabytes/Second',
  'Gigabytes/Second', 'Terabytes/Second', 'Bits/Second', 'Kilobits/Second', 'Megabits/Second', 'Gigabits/Second',
  'Terabits/Second', 'Count/Second', 'None',
]);

const MAX_EVENT_BYTES = 256 * 1024;
const MAX_DIMENSION_KEYS = 30;
const MAX_METRICS = 100;
const MAX_VALUES = 100;
/** 2001-09-09 in ms: a Timestamp below it is seconds, not "milliseconds after Jan 1, 1970". */
const MIN_MS_TIMESTAMP = 1e12;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isName = (value: unknown): value is string => typeof value === 'string' && value.length >= 1 && value.length <= 255;

/** Members beyond `allowed`: "objects defined by this specification MUST NOT contain any additional members". */
function extra(object: Record<string, unknown>, allowed: string[], where: string): string[] {
  return Object.keys(object)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${where} has the member ${key}, which the specification does not define`);
}

/** Every way `line` breaks the specification; empty when it is a valid EMF document. */
export function emfProblems(line: string): string[] {
  if (Buffer.byteLength(line, 'utf8') > MAX_EVENT_BYTES) return [`the event is larger than ${MAX_EVENT_BYTES} bytes`];
  let root: unknown;
  try {
    root = JSON.parse(line);
  } catch {
    return ['root node: the LogEvent message MUST be a valid JSON object with no additional data before or after it'];
  }
  if (!isObject(root)) return ['root node: the LogEvent message MUST be a JSON object'];
  const aws = root._aws;
  if (!isObject(aws)) return ['root node: MUST contain the top-level member _aws, an object (the Metadata object)'];
  const problems = extra(aws, ['Timestamp', 'CloudWatchMetrics'], '_aws');
  if (typeof aws.Timestamp !== 'number' || !Number.isInteger(aws.Timestamp) || aws.Timestamp < MIN_MS_TIMESTAMP) {
    problems.push(`_aws.Timestamp MUST be a number of milliseconds after Jan 1, 1970 00:00:00 UTC, got: ${JSON.stringify(aws.Timestamp)}`);
  }
  if (!Array.isArray(aws.CloudWatchMetrics)) return [...problems, '_aws.CloudWatchMetrics MUST be an array of MetricDirective objects'];
  aws.CloudWatchMetrics.forEach((directive: unknown, d: number) => {
    const where = `_aws.CloudWatchMetrics[${d}]`;
    if (!isObject(directive)) {
      problems.push(`${where} MUST be a MetricDirective object`);
      return;
    }
    problems.push(...extra(directive, ['Namespace', 'Dimensions', 'Metrics'], where));
    if (!isName(directive.Namespace)) problems.push(`${where}.Namespace MUST be a string of 1 to 255 characters`);
    if (!Array.isArray(directive.Dimensions) || directive.Dimensions.length < 1) {
      problems.push(`${where}.Dimensions MUST be an array of DimensionSet arrays (at least one)`);
    } else {
      directive.Dimensions.forEach((set: unknown, s: number) => {
        if (!Array.isArray(set)) {
          problems.push(`${where}.Dimensions[${s}] MUST be an array of strings (a DimensionSet)`);
          return;
        }
        if (set.length > MAX_DIMENSION_KEYS) problems.push(`${where}.Dimensions[${s}] MUST NOT contain more than ${MAX_DIMENSION_KEYS} dimension keys`);
        for (const key of set) {
          if (!isName(key)) problems.push(`${where}.Dimensions[${s}] holds ${JSON.stringify(key)}: a dimension key MUST be a string of 1 to 255 characters`);
          else if (typeof root[key] !== 'string') problems.push(`dimension ${key}: its target member MUST be on the root node with a string value`);
        }
      });
    }
    if (!Array.isArray(directive.Metrics)) {
      problems.push(`${where}.Metrics MUST be an array of MetricDefinition objects`);
      return;
    }
    if (directive.Metrics.length > MAX_METRICS) problems.push(`${where}.Metrics MUST NOT contain more than ${MAX_METRICS} MetricDefinition objects`);
    directive.Metrics.forEach((definition: unknown, m: number) => {
      const at = `${where}.Metrics[${m}]`;
      if (!isObject(definition)) {
        problems.push(`${at} MUST be a MetricDefinition object`);
        return;
      }
      problems.push(...extra(definition, ['Name', 'Unit', 'StorageResolution'], at));
      if (!isName(definition.Name)) {
        problems.push(`${at}.Name MUST be a string of 1 to 255 characters`);
        return;
      }
      if (definition.Unit !== undefined && !EMF_UNITS.has(definition.Unit as string)) {
        problems.push(`${at}.Unit SHOULD be a CloudWatch metric unit, got: ${JSON.stringify(definition.Unit)}`);
      }
      if (definition.StorageResolution !== undefined && definition.StorageResolution !== 1 && definition.StorageResolution !== 60) {
        problems.push(`${at}.StorageResolution must be 1 or 60, got: ${JSON.stringify(definition.StorageResolution)}`);
      }
      const target = root[definition.Name];
      const numeric = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
      const valid = numeric(target) || (Array.isArray(target) && target.length <= MAX_VALUES && target.every(numeric));
      if (!valid) {
        problems.push(`metric ${definition.Name}: its target member MUST be on the root node, a number or an array of at most ${MAX_VALUES} numbers, got: ${JSON.stringify(target)}`);
      }
    });
  });
  return problems;
}

/** One metric datum a valid line gives CloudWatch: per directive, dimension set and metric. */
export interface EmittedMetric {
  readonly namespace: string;
  readonly name: string;
  /** The dimension set with the line's values. */
  readonly dimensions: Readonly<Record<string, string>>;
  readonly unit?: string;
  readonly value: number | number[];
}

/** What CloudWatch extracts from a valid EMF line. */
export function emittedMetrics(line: string): EmittedMetric[] {
  const root = JSON.parse(line);
  return root._aws.CloudWatchMetrics.flatMap((directive: any) =>
    directive.Dimensions.flatMap((set: string[]) =>
      directive.Metrics.map((definition: any) => ({
        namespace: directive.Namespace,
        name: definition.Name,
        dimensions: Object.fromEntries(set.map((key) => [key, root[key]])),
        unit: definition.Unit,
        value: root[definition.Name],
      })),
    ),
  );
}

/** `namespace/name {k=v,...}`, the dimension keys sorted: one metric's identity in CloudWatch. */
export function metricIdentity(namespace: string, name: string, dimensions: Readonly<Record<string, string>>): string {
  const dims = Object.keys(dimensions).sort().map((key) => `${key}=${dimensions[key]}`);
  return `${namespace}/${name} {${dims.join(',')}}`;
}

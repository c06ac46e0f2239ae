/**
 * The metrics a local run's functions emitted, read from their log lines as CloudWatch
 * reads Embedded Metric Format: each directive's dimension sets and metrics, values from the line's
 * root. `local demo` ends with them as a small table, per tool.
 */
import { escapeText as t } from '../console/escape';
import { CALL_METRICS as C, DECISION_DIMENSION, DECISION_METRICS, DIMENSIONS as D, EXPIRY_METRICS as E } from '../lambda/metrics/names';
import type { LocalLine } from './print';

/** Values per metric name, under one dimension set with its values (`Owner=…,Tool=…`). */
export type RunMetrics = Map<string, Map<string, number[]>>;

/** Every metric datum in the run's function log lines, by dimension values, then metric name. */
export function runMetrics(lines: readonly LocalLine[]): RunMetrics {
  const found: RunMetrics = new Map();
  for (const line of lines) {
    if (line.type !== 'log' || !line.line.includes('"_aws"')) continue;
    let root: any;
    try {
      root = JSON.parse(line.line);
    } catch {
      continue;
    }
    for (const directive of root?._aws?.CloudWatchMetrics ?? []) {
      for (const set of directive.Dimensions ?? []) {
        const key = (set as string[]).map((name) => `${name}=${root[name]}`).join(',');
        const metrics = found.get(key) ?? new Map<string, number[]>();
        found.set(key, metrics);
        for (const { Name } of directive.Metrics ?? []) metrics.set(Name, [...(metrics.get(Name) ?? []), ...[root[Name]].flat()]);
      }
    }
  }
  return found;
}

const sum = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);
const median = (values: number[] | undefined) => {
  const sorted = [...(values ?? [])].sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : sorted[Math.floor((sorted.length - 1) / 2)];
};

/** The run's metrics as lines of text: a row per tool, then the approvals' figures. */
export function metricsTable(metrics: RunMetrics): string[] {
  const counts = [C.calls, C.failed, C.approvalsRequested, C.duplicatesSuppressed].map((metric) => metric.name);
  const rows: string[][] = [['tool', ...counts, `${C.duration.name} p50 (ms)`]];
  const owners = [...metrics.keys()].filter((key) => !key.includes(','));
  for (const owner of owners) {
    const tools = [...metrics.keys()].filter((key) => key.startsWith(`${owner},${D.tool}=`)).sort();
    for (const key of tools) {
      const m = metrics.get(key);
      rows.push([t(key.slice(`${owner},${D.tool}=`.length)), ...counts.map((name) => String(sum(m?.get(name)))), String(median(m?.get(C.duration.name)) ?? '-')]);
    }
    // Calls naming no allowlisted tool, or refused before their tool was known, count under [Owner] alone.
    const untold = counts.map((name) => sum(metrics.get(owner)?.get(name)) - sum(tools.flatMap((key) => metrics.get(key)?.get(name) ?? [])));
    if (untold[0] > 0) rows.push(['(no allowlisted tool)', ...untold.map(String), '-']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const table = rows.map((r) => `  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}`.trimEnd());
  const approvals = owners.map((owner) => {
    const at = (suffix: string, name: string) => metrics.get(`${owner}${suffix}`)?.get(name);
    const decided = (decision: string) => sum(at(`,${D.decision}=${decision}`, DECISION_METRICS.approvalsDecided.name));
    const last = (name: string) => at('', name)?.at(-1) ?? '-';
    return (
      `  approvals of ${t(owner.slice(`${D.owner}=`.length))}: ${DECISION_METRICS.approvalsDecided.name} ${decided(DECISION_DIMENSION.approved)} approved, ` +
      `${decided(DECISION_DIMENSION.denied)} denied; ${E.approvalsExpired.name} ${sum(at('', E.approvalsExpired.name))}; ` +
      `${E.pendingApprovals.name} ${last(E.pendingApprovals.name)} and ${E.oldestPendingApprovalAge.name} ${last(E.oldestPendingApprovalAge.name)} s at the expirer's last run`
    );
  });
  return [...table, ...approvals];
}

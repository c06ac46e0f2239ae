/** `cdk-tool-handler audit ...`: its options, parsed apart from `approvals`' and `local`'s. */
import { UsageError } from '../console/errors';
import type { AuditQuery } from './audit-query';
import { COMMON_OPTIONS, parseCommandLine } from './common-options';

/** Where the records are: the stack's log groups in CloudWatch Logs, or the running local run. */
export type AuditTarget =
  | { readonly kind: 'local' }
  | { readonly kind: 'stack'; readonly stack: string; readonly output?: string; readonly region?: string };

export interface AuditCommand {
  readonly kind: 'audit';
  readonly target: AuditTarget;
  readonly query: AuditQuery;
  readonly json: boolean;
}

const OPTIONS = {
  ...COMMON_OPTIONS,
  since: { type: 'string' },
  caller: { type: 'string' },
  tool: { type: 'string' },
  approval: { type: 'string' },
  output: { type: 'string' },
  region: { type: 'string' },
  local: { type: 'boolean' },
} as const;

/** When `--since` is not given: the last day. */
export const DEFAULT_SINCE_MS = 24 * 60 * 60 * 1000;

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseAuditCommand(argv: readonly string[], now = Date.now()): AuditCommand | { readonly kind: 'help'; readonly topic: 'audit' } {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) return { kind: 'help', topic: 'audit' };
  if (positionals.length > 0) throw new UsageError('`audit` takes no argument: filter with --since, --caller, --tool or --approval.');
  for (const name of ['caller', 'tool', 'approval'] as const) {
    if (values[name] === '') throw new UsageError(`--${name} needs a value.`);
  }
  return {
    kind: 'audit',
    target: parseTarget(values),
    query: { since: parseSince(values.since, now), caller: values.caller, tool: values.tool, approval: values.approval },
    json: values.json === true,
  };
}

function parseTarget(values: { stack?: string; output?: string; region?: string; local?: boolean }): AuditTarget {
  if (values.local) {
    if (values.stack !== undefined || values.output !== undefined || values.region !== undefined) {
      throw new UsageError('--local goes alone: not with --stack, --output or --region.');
    }
    return { kind: 'local' };
  }
  if (values.region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(values.region)) {
    throw new UsageError('--region must be a region name such as us-east-1.');
  }
  if (values.output !== undefined && values.stack === undefined) throw new UsageError('--output goes with --stack.');
  if (values.stack === undefined || values.stack === '') {
    throw new UsageError(
      "Where are the records? Pass --stack NAME to read the stack's log groups in CloudWatch Logs, or --local for the running `cdk-tool-handler local`.",
    );
  }
  return { kind: 'stack', stack: values.stack, output: values.output, region: values.region };
}

/** A duration back from now (`30s`, `15m`, `12h`, `7d`, `2w`), or an ISO 8601 time. */
export function parseSince(value: string | undefined, now: number): number {
  if (value === undefined) return now - DEFAULT_SINCE_MS;
  const duration = /^(\d{1,6})([smhdw])$/.exec(value);
  if (duration) return now - Number(duration[1]) * UNIT_MS[duration[2]];
  const time = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new UsageError('--since must be a duration back from now (30s, 15m, 12h, 7d, 2w) or an ISO 8601 time such as 2026-12-01T09:00:00Z.');
  }
  return time;
}

/**
 * The audit archive's subscription filter, evaluated against the lines the real bundles write
 * (test/support/audit-lines.ts: the sample's handler, approvals API and expirer in a local run): the
 * pattern in the synthesized template selects every audit record (every call outcome, a decision
 * each way, an expiry) and nothing else (the expirer's figures, the handler's warning, the SDK's warnings
 * printed with console.*). The pattern is evaluated as CloudWatch Logs documents it (test/support/filter-pattern.ts).
 */
import type { AuditFields } from '../../lambda/audit';
import { AUDIT_FILTER_PATTERN } from '../../lambda/audit';
import { templateOf } from '../construct/helpers';
import { runSampleForLines, SECRET_ARGS, type SampleRun } from '../support/audit-lines';
import { matchesFilterPattern } from '../support/filter-pattern';

/** Every field of `AuditFields` but the decision's own two; the type check below fails when one is added and not listed. */
const FIELDS = [
  'record',
  'time',
  'owner',
  'event',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'run_id',
  'approval_id',
  'enduser.id',
  'caller.kind',
  'caller.verified',
  'source',
  'outcome',
  'duration_ms',
  'args_sha256',
  'trace_id',
  'message_id',
] as const;
const DECISION_FIELDS = ['decided_by', 'decision'] as const;
type Listed = (typeof FIELDS)[number] | (typeof DECISION_FIELDS)[number];
const everyFieldListed: [Exclude<keyof AuditFields, Listed>] extends [never] ? true : never = true;

let sample: SampleRun;
let pattern: string;

beforeAll(async () => {
  const template = templateOf({ auditArchive: {} });
  // The handler's log group's filter (the three are checked alike below).
  const filters = Object.values(template.findResources('AWS::Logs::SubscriptionFilter')) as any[];
  pattern = filters.find((f) => String(f.Properties.LogGroupName.Ref).startsWith('ToolsLogGroup')).Properties.FilterPattern;
  sample = await runSampleForLines();
}, 180_000);

/** The line as JSON, when it is a JSON object. */
function parsed(line: string): Record<string, any> | undefined {
  try {
    const value = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const records = () => sample.lines.filter(({ line }) => parsed(line)?.record === 'audit');
const others = () => sample.lines.filter(({ line }) => parsed(line)?.record !== 'audit');

test('the filter of each log group is the audit filter pattern', () => {
  expect(everyFieldListed).toBe(true);
  expect(pattern).toBe('{ $.record = "audit" }');
  expect(pattern).toBe(AUDIT_FILTER_PATTERN);
  const filters = Object.values(templateOf({ auditArchive: {} }).findResources('AWS::Logs::SubscriptionFilter')) as any[];
  expect(filters.map((f) => f.Properties.FilterPattern)).toEqual([AUDIT_FILTER_PATTERN, AUDIT_FILTER_PATTERN, AUDIT_FILTER_PATTERN]);
});

test('the run wrote a record of every kind: each call outcome, a decision each way, an expiry', () => {
  const kinds = new Set(records().map(({ fn, line }) => `${fn} ${parsed(line)!.event} ${parsed(line)!.outcome}`));
  for (const kind of [
    'handler call ok',
    'handler call pending_approval',
    'handler call already_done',
    'handler call ApprovalDenied',
    'handler call ToolUsageError',
    'handler call ToolNotFound',
    'api decision approved',
    'api decision denied',
    'expirer expiry expired',
  ]) {
    expect(kinds).toContain(kind);
  }
  // A message that is no envelope is refused before any tool, and still has its record.
  expect(records().some(({ line }) => parsed(line)!['gen_ai.tool.name'] === null && parsed(line)!.message_id !== null)).toBe(true);
});

test('every audit record the bundles wrote matches the pattern', () => {
  expect(records().length).toBeGreaterThanOrEqual(14);
  for (const { fn, line } of records()) expect({ fn, line, matches: matchesFilterPattern(pattern, line) }).toEqual({ fn, line, matches: true });
});

test("no other line matches: the expirer's figures, the handler's warning, what code printed with console.*", () => {
  const lines = others();
  expect(lines.some(({ fn, line }) => fn === 'expirer' && parsed(line)?.message === 'approvals expirer run')).toBe(true);
  expect(lines.some(({ fn, line }) => fn === 'handler' && parsed(line)?.level === 'WARN')).toBe(true);
  // The SDK's own warnings, wrapped by the log format as anything printed with console.* is.
  expect(lines.some(({ line }) => typeof parsed(line)?.timestamp === 'string' && typeof parsed(line)?.message === 'string')).toBe(true);
  for (const { fn, line } of lines) expect({ fn, line, matches: matchesFilterPattern(pattern, line) }).toEqual({ fn, line, matches: false });
});

test('every record has the schema: every field at the top level, `time` ISO 8601, a decision who decided', () => {
  for (const { line } of records()) {
    const record = parsed(line)!;
    for (const field of FIELDS) expect({ field, present: field in record }).toEqual({ field, present: true });
    expect(record.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(new Date(record.time).toISOString()).toBe(record.time);
    expect(['call', 'decision', 'expiry']).toContain(record.event);
    if (record.event === 'decision') {
      for (const field of DECISION_FIELDS) expect(record[field]).toEqual(expect.any(String));
    }
  }
});

test('no args value of a call appears in any record', () => {
  for (const { line } of records()) for (const secret of SECRET_ARGS) expect({ line, leaks: line.includes(secret) }).toEqual({ line, leaks: false });
});

/**
 * Audit records as the CLI and the local run read them (docs/operations.md, "Audit records"): a log line is one
 * when it is a JSON object whose top-level `record` is `"audit"`, which the runtime writes to the
 * function's stdout itself. What a tool prints with `console.*` is wrapped by Lambda's JSON log
 * format under `message`, so it is never one in the cloud.
 */
import { AUDIT_RECORD, type AuditFields } from '../lambda/audit';
import { escapeText } from './escape';

/** An audit record as written: the fields of `AuditFields`, and whatever else its line carries (a call's log fields, its metrics). */
export type AuditRecord = Readonly<Record<string, unknown>> & { readonly record: AuditFields['record'] };

/** The audit record a log line holds, or `undefined` when the line is not one. */
export function auditRecordOf(line: string): AuditRecord | undefined {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return (value as Record<string, unknown>).record === AUDIT_RECORD ? (value as AuditRecord) : undefined;
}

/**
 * One line for people: when, what happened (`call`, `decision`, `expiry`), the tool, the outcome,
 * who asked, the approval and who decided it. Every value is escaped (console/escape.ts): a record's
 * values come from callers and tools.
 */
export function formatAuditRecord(record: AuditRecord): string {
  const value = (name: keyof AuditFields) => {
    const v = record[name];
    return v === null || v === undefined || v === '' ? undefined : escapeText(v);
  };
  const who = value('enduser.id');
  const asked = who === undefined ? 'no caller' : `asked by ${who}${record['caller.verified'] === false ? ' (unverified)' : ''}`;
  const approval = value('approval_id');
  const decidedBy = value('decided_by');
  return [
    auditTime(record.time),
    value('event') ?? '?',
    value('gen_ai.tool.name') ?? '-',
    value('outcome') ?? '?',
    asked,
    ...(approval === undefined ? [] : [`approval ${approval}`]),
    ...(decidedBy === undefined ? [] : [`decided by ${decidedBy}`]),
  ].join('  ');
}

/** `2026-12-02T15:44:59.123Z` → `2026-12-02 15:44:59Z`; anything else escaped as given. */
function auditTime(time: unknown): string {
  const t = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  if (Number.isNaN(t)) return escapeText(time ?? '?');
  return new Date(t).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

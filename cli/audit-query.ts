/**
 * Which audit records `cdk-tool-handler audit` prints: those since a time, of a caller, a tool, an
 * approval. The local run's are filtered here; CloudWatch Logs is asked with a filter pattern that
 * narrows what it sends (`auditFilterPattern`), and what it sends is filtered here too.
 */
import type { AuditRecord } from '../console/audit-record';
import { AUDIT_FILTER_PATTERN } from '../lambda/audit';

export interface AuditQuery {
  /** Epoch milliseconds: records of this time or later. */
  readonly since: number;
  /** `enduser.id`. */
  readonly caller?: string;
  /** `gen_ai.tool.name`. */
  readonly tool?: string;
  /** `approval_id`. */
  readonly approval?: string;
}

export function matchesAuditQuery(record: AuditRecord, query: AuditQuery): boolean {
  const time = typeof record.time === 'string' ? Date.parse(record.time) : Number.NaN;
  if (!(time >= query.since)) return false;
  if (query.caller !== undefined && record['enduser.id'] !== query.caller) return false;
  if (query.tool !== undefined && record['gen_ai.tool.name'] !== query.tool) return false;
  if (query.approval !== undefined && record.approval_id !== query.approval) return false;
  return true;
}

/** A value a filter pattern can hold as a quoted string and match exactly: no quote, backslash or `*` wildcard. */
const PLAIN_VALUE = /^[A-Za-z0-9_.:@+=,/-]{1,512}$/;

/**
 * The CloudWatch Logs filter pattern for `query`: always the audit mark (`$.record = "audit"`), and
 * the approval's id when given. A JSON selector names a key of letters, digits, `_` and `-` at each
 * level (AWS's "Filter pattern syntax"): `$.enduser.id` would read a key `id` inside an object
 * `enduser`, not the key `enduser.id` that the records carry, so the caller and the tool are matched
 * here, on what CloudWatch Logs sends. So is an approval id with a character the pattern would read
 * otherwise (a quote, a `*`).
 */
export function auditFilterPattern(query: AuditQuery): string {
  const conditions = ['$.record = "audit"'];
  if (query.approval !== undefined && PLAIN_VALUE.test(query.approval)) conditions.push(`$.approval_id = "${query.approval}"`);
  return conditions.length === 1 ? AUDIT_FILTER_PATTERN : `{ ${conditions.join(' && ')} }`;
}

/** Newest last: by each record's `time`, in the order read where two are equal. */
export function inTimeOrder(records: readonly AuditRecord[]): AuditRecord[] {
  const at = (r: AuditRecord) => (typeof r.time === 'string' ? Date.parse(r.time) : Number.NaN) || 0;
  return records
    .map((record, i) => ({ record, i }))
    .sort((a, b) => at(a.record) - at(b.record) || a.i - b.i)
    .map(({ record }) => record);
}

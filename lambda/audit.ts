/**
 * Audit records (docs: "Audit records"): one JSON line per call and per decision and expiry, on the
 * stdout of the function that did the work, written after the work whatever it did. A call's is its
 * log line itself, which carries every field; a decision's and an expiry's are lines of their own.
 * Field names follow OpenTelemetry's semantic conventions where one exists (`gen_ai.tool.name`,
 * `gen_ai.tool.call.id`, `enduser.id`), dotted as written. Never the args: their hash only.
 */
import type { Caller } from './caller';

/** Every audit record has `record: "audit"` at its top level: what the archive's subscription filter matches (`{ $.record = "audit" }`). */
export const AUDIT_RECORD = 'audit';

/** The CloudWatch Logs filter pattern that selects audit records. */
export const AUDIT_FILTER_PATTERN = '{ $.record = "audit" }';

export type AuditEvent = 'call' | 'decision' | 'expiry';

/** An audit record's fields, as written. Absent values are `null`, so every record has every field of its event. */
export interface AuditFields {
  readonly record: typeof AUDIT_RECORD;
  /** ISO 8601, when the work ended. */
  readonly time: string;
  readonly owner: string;
  readonly event: AuditEvent;
  readonly 'gen_ai.tool.name': string | null;
  readonly 'gen_ai.tool.call.id': string | null;
  readonly run_id: string | null;
  readonly approval_id: string | null;
  /** The caller's id: for a decision or an expiry, the caller of the call that asked. */
  readonly 'enduser.id': string | null;
  readonly 'caller.kind': Caller['kind'] | null;
  readonly 'caller.verified': boolean | null;
  /** Where the call came from (`sqs:<arn>`, `agentcore`, ...); `null` for decisions and expiries. */
  readonly source: string | null;
  /** A call's reply status or error type; `approved`/`denied` for a decision; `expired` for an expiry. */
  readonly outcome: string;
  readonly duration_ms: number | null;
  /** SHA-256 (base64url) of the tool's name and the canonical args: the call's fingerprint, never the args. */
  readonly args_sha256: string | null;
  readonly trace_id: string | null;
  readonly message_id: string | null;
  /** Decisions only: who decided (the API caller's authenticated principal). */
  readonly decided_by?: string;
  readonly decision?: 'approved' | 'denied';
}

/** The fields every audit record shares, of whom a call acted for. */
export function callerFields(caller: Caller | undefined): Pick<AuditFields, 'enduser.id' | 'caller.kind' | 'caller.verified'> {
  return {
    'enduser.id': caller?.id ?? null,
    'caller.kind': caller?.kind ?? null,
    'caller.verified': caller?.verified ?? null,
  };
}

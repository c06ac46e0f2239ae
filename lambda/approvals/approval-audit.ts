/**
 * The audit records of an approval's fate (docs: "Audit records"): a decision's, written by the
 * approvals API once the decision is stored, and an expiry's, written by the expirer once it marked
 * the approval expired. Each takes from the approval the call that asked, and who asked it.
 */
import { AUDIT_RECORD, callerFields, type AuditFields } from '../audit';
import type { ApprovalRecord } from '../stores/types';

/** What an audit record of an approval's fate (a decision, an expiry) takes from it: the call that asked. */
function callThatAsked(record: ApprovalRecord, owner: string): Omit<AuditFields, 'event' | 'outcome'> {
  return {
    record: AUDIT_RECORD,
    time: new Date().toISOString(),
    owner,
    'gen_ai.tool.name': record.tool,
    'gen_ai.tool.call.id': record.callId,
    run_id: record.runId,
    approval_id: record.approvalId,
    ...callerFields(record.requestedBy),
    source: null,
    duration_ms: null,
    args_sha256: record.fingerprint,
    trace_id: null,
    message_id: null,
  };
}

/** A decision's audit record. */
export function decisionAudit(record: ApprovalRecord, owner: string): AuditFields {
  const decision = record.status === 'approved' ? 'approved' : 'denied';
  return { ...callThatAsked(record, owner), event: 'decision', outcome: decision, decided_by: record.decidedBy ?? '', decision };
}

/** An expiry's audit record. */
export function expiryAudit(record: ApprovalRecord, owner: string): AuditFields {
  return { ...callThatAsked(record, owner), event: 'expiry', outcome: 'expired' };
}

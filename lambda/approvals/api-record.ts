import { callFingerprint } from '../ids';
import type { ApprovalRecord } from '../stores/types';

/** An approval as the approvals API shows it: snake_case, ISO 8601 times, no claim or result. */
export interface ApiApprovalRecord {
  readonly approval_id: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly run_id: string;
  readonly call_id: string;
  readonly status: ApprovalRecord['status'];
  /** The API's own hash of the stored tool and args: what a decision binds to. */
  readonly fingerprint: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly decided_by?: string;
  readonly decided_at?: string;
  readonly reason?: string;
}

export function toApiRecord(record: ApprovalRecord): ApiApprovalRecord {
  return {
    approval_id: record.approvalId,
    tool: record.tool,
    args: record.args,
    run_id: record.runId,
    call_id: record.callId,
    status: record.status,
    fingerprint: callFingerprint(record.tool, record.args),
    created_at: iso(record.createdAt),
    expires_at: iso(record.expiresAt),
    ...(record.decidedBy === undefined ? {} : { decided_by: record.decidedBy }),
    ...(record.decidedAt === undefined ? {} : { decided_at: iso(record.decidedAt) }),
    ...(record.reason === undefined ? {} : { reason: record.reason }),
  };
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

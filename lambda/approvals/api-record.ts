import { callFingerprint } from '../ids';
import { approvalFields } from '../stores/approval-record';
import type { ApprovalRecord } from '../stores/types';

/** An approval as the approvals API shows it: snake_case, ISO 8601 times, no claim or result. */
export interface ApiApprovalRecord {
  readonly approval_id: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly run_id: string;
  readonly call_id: string;
  /** Who asked: the caller of the call (its id, kind, whether verified, the claims named for display); absent for a call without one. */
  readonly requested_by?: RequestedBy;
  readonly status: ApprovalRecord['status'];
  /** The API's own hash of the stored tool and args: what a decision binds to. */
  readonly fingerprint: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly decided_by?: string;
  readonly decided_at?: string;
  readonly reason?: string;
}

/** Who asked for an approval, as the API shows it. */
export interface RequestedBy {
  readonly id: string;
  readonly kind: 'iam' | 'user';
  readonly verified: boolean;
  readonly claims?: Readonly<Record<string, string | number | boolean | string[]>>;
}

/** The API's view of a record: the fields `APPROVAL_FIELDS` shows, under snake_case names, its status, and the API's own fingerprint. */
export function toApiRecord(record: ApprovalRecord): ApiApprovalRecord {
  const view: Record<string, unknown> = { status: record.status, fingerprint: callFingerprint(record.tool, record.args) };
  for (const [key, spec] of approvalFields()) {
    const value = record[key];
    if (!spec.api || value === undefined) continue;
    // Times are epoch ms in the record, ISO 8601 in the API.
    const time = spec.form === 'number' || spec.form === 'seconds';
    view[key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = spec.view
      ? spec.view(value as never)
      : time
        ? new Date(value as number).toISOString()
        : value;
  }
  return view as unknown as ApiApprovalRecord;
}

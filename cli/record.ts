/** The approvals API's shapes (SPEC §9), as the CLI reads them. */

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];

/** A record of `GET /approvals/{id}` (times ISO 8601). */
export interface ApprovalRecord {
  readonly approval_id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly run_id: string;
  readonly call_id: string;
  readonly status: ApprovalStatus;
  /** The API's hash of the stored tool and args: a decision must send it back. */
  readonly fingerprint: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly decided_by?: string;
  readonly decided_at?: string;
  readonly reason?: string;
}

/** A page of `GET /approvals`. */
export interface ApprovalPage {
  readonly approvals: ApprovalRecord[];
  /** Present while more may follow. */
  readonly next?: string;
}

/** The body of `POST /approvals/{id}/decision`. */
export interface DecisionBody {
  readonly approved: boolean;
  readonly reason?: string;
  readonly fingerprint: string;
}

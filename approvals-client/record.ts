/** The approvals API's shapes (SPEC §9), as the CLI reads them: the API's own types. */
import type { ApiApprovalRecord } from '../lambda/approvals/api-record';
import type { ApprovalStatus } from '../lambda/stores/types';

export type { ApprovalStatus };

export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];

/** A record of `GET /approvals/{id}` (times ISO 8601). */
export type ApprovalRecord = ApiApprovalRecord;

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

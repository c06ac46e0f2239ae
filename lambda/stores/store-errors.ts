/** Every message the stores (and the approvals API over them) give for an approval: one home, shared. */
import { ApprovalNotFound, ToolUsageError } from '../errors';

/** No such approval (the API answers 404). */
export function approvalMissing(approvalId: string): ApprovalNotFound {
  return new ApprovalNotFound(`Approval ${approvalId} does not exist.`);
}

/** A resume of an approval that is missing or expired. */
export function approvalGone(approvalId: string): ApprovalNotFound {
  return new ApprovalNotFound(`Approval ${approvalId} does not exist or has expired.`);
}

/** A `next` that no list page returned. */
export function unknownPosition(): ToolUsageError {
  return new ToolUsageError('`next` is not a position this list returned: pass the `next` of the previous page as it came.');
}

/** A call re-sent after its approval expired: the approval is never started afresh under the same id. */
export function callApprovalExpired(approvalId: string): ToolUsageError {
  return new ToolUsageError(
    `The approval ${approvalId} for this call expired; send the call again with a new run_id or call_id.`,
  );
}

/** Why a decision was refused; the approvals API answers each with 409 and this as `error.type`. */
export type DecisionConflict = 'already_decided' | 'fingerprint_mismatch' | 'expired' | 'changed';

/** A decision the approval cannot take. */
export class DecisionRefused extends ToolUsageError {
  constructor(
    message: string,
    readonly conflict: DecisionConflict,
  ) {
    super(message);
  }
}

export function decisionRefused(conflict: DecisionConflict, approvalId: string, status?: string): DecisionRefused {
  switch (conflict) {
    case 'already_decided':
      return new DecisionRefused(`Approval ${approvalId} is already decided (${status}).`, conflict);
    case 'fingerprint_mismatch':
      return new DecisionRefused(
        `Approval ${approvalId} changed since it was read (its tool or args differ from the fingerprint given); read it again before deciding.`,
        conflict,
      );
    case 'expired':
      return new DecisionRefused(`Approval ${approvalId} expired before it was decided; it can no longer be decided.`, conflict);
    case 'changed':
      return new DecisionRefused(`Approval ${approvalId} changed while it was being decided; read it again.`, conflict);
  }
}

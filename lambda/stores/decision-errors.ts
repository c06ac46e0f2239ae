import { ToolUsageError } from '../errors';

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

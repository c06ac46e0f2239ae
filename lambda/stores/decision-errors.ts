import { ToolUsageError } from '../errors';

/** A decision refused because the approval's tool or args are no longer what the approver saw. */
export function changedSinceSeen(approvalId: string): ToolUsageError {
  return new ToolUsageError(
    `Approval ${approvalId} changed since it was read (its tool or args differ from the fingerprint given); read it again before deciding.`,
  );
}

/**
 * A claim limited to some approvals (a host that may resume only what its own calls asked for):
 * which records it may see. Both stores answer any other as missing, and never claim it; the
 * DynamoDB store also puts the same limits into the claim's condition, so that no write happens.
 */
import type { ApprovalRecord, ClaimInput } from './types';

export function claimMaySee(input: Pick<ClaimInput, 'runIdPrefix' | 'requestedBy'>, record: ApprovalRecord): boolean {
  if (input.runIdPrefix !== undefined && !record.runId.startsWith(input.runIdPrefix)) return false;
  if (input.requestedBy !== undefined && (record.requestedBy?.id ?? null) !== input.requestedBy) return false;
  return true;
}

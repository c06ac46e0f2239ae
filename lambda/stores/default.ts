import { readSeconds } from '../config';
import { ENV } from '../names';
import { DynamoApprovalStore } from './dynamo';
import type { ApprovalStore } from './types';

/**
 * The approval store the environment configures: a DynamoApprovalStore on
 * TOOL_HANDLER_APPROVALS_TABLE (TTL from TOOL_HANDLER_APPROVAL_TTL_S), or none. State is never
 * silently kept in one container's memory.
 */
export function defaultApprovalStore(env: Readonly<Record<string, string | undefined>> = process.env): ApprovalStore | undefined {
  const tableName = env[ENV.approvalsTable]?.trim();
  if (!tableName) return undefined;
  const ttlSeconds = readSeconds(ENV.approvalTtlSeconds, { allowZero: false }, env);
  return new DynamoApprovalStore({ tableName, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) });
}

import { EngineApprovals } from '../approvals/engine-client';
import { readSeconds } from '../config';
import { ENV } from '../names';
import { DynamoApprovalStore } from './dynamo';
import type { ApprovalRunner, CallStore } from './types';

export interface DefaultStores {
  readonly approvals?: ApprovalRunner;
  readonly calls?: CallStore;
}

/**
 * The stores the environment configures. Approvals: the approvals engine named by
 * TOOL_HANDLER_APPROVALS_ENGINE (what the construct sets), else a DynamoApprovalStore on
 * TOOL_HANDLER_APPROVALS_TABLE, else none. Duplicate calls: that table, else none. State is never
 * silently kept in one container's memory.
 */
export function defaultStores(env: Readonly<Record<string, string | undefined>> = process.env): DefaultStores {
  const tableName = env[ENV.approvalsTable]?.trim();
  const engine = env[ENV.approvalsEngine]?.trim();
  const ttlSeconds = readSeconds(ENV.approvalTtlSeconds, { allowZero: false }, env);
  const table = tableName
    ? new DynamoApprovalStore({
        tableName,
        owner: ownerFrom(env),
        ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
      })
    : undefined;
  return { approvals: engine ? new EngineApprovals({ functionName: engine }) : table, calls: table };
}

/** TOOL_HANDLER_OWNER, or `undefined` for the default owner. */
export function ownerFrom(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return env[ENV.owner]?.trim() || undefined;
}

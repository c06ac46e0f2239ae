/**
 * Entry of the approvals engine function: configured by the construct's environment, invoked
 * by the tool handler only.
 */
import { approvalsEngine } from '../approvals/engine';
import { ownerFrom, readAllowlist, readSeconds } from '../config';
import { configError } from '../errors';
import { ENV } from '../construct-contract';
import { DynamoApprovalStore } from '../stores/dynamo';

function required(name: string): string {
  const value = process.env[name]?.trim();
  if (!value) throw configError(`the approvals engine needs ${name} to be set.`);
  return value;
}

const ttlSeconds = readSeconds(ENV.approvalTtlSeconds, { allowZero: false });
const claimMaxSeconds = readSeconds(ENV.claimMaxSeconds, { allowZero: false }) ?? 900;

export const handler = approvalsEngine({
  store: new DynamoApprovalStore({
    tableName: required(ENV.approvalsTable),
    owner: ownerFrom(),
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  }),
  allowed: readAllowlist() ?? new Set(),
  claimMaxMs: claimMaxSeconds * 1000,
});

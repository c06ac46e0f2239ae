/**
 * Approvals and duplicate calls in one DynamoDB table (layout in `construct-contract.ts`).
 *
 * Every state change is one conditional write:
 * - dynamo-approvals.ts: the running side of approvals (create, claim, release, complete; get, read),
 *   which the approvals engine runs for handlers;
 * - dynamo-decisions.ts: the approvers' and operators' side (decide, list), which the approvals API runs;
 * - dynamo-calls.ts: duplicate calls (begin, finish, abandon), which the handler runs itself.
 * The first and the last are `DynamoHandlerStore` (dynamo-handler-store.ts), which this class extends.
 * The decision attributes are written only by `decide`.
 */
import { getApproval, readApproval } from './dynamo-approvals';
import { decideApproval, listApprovals, listPage } from './dynamo-decisions';
import { expireDue, retryExpiry } from './dynamo-expiry';
import { DynamoHandlerStore } from './dynamo-handler-store';
import type { ApprovalRecord, ApprovalStore, DecideInput, ExpiryRun, ListApprovalsInput, ListPage, ListPageInput } from './types';

export type { DynamoApprovalStoreProps } from './dynamo-handler-store';

/**
 * The DynamoDB approval and duplicate-call store (what the approvals engine and API use inside; a
 * handler outside the construct may use it directly).
 *
 * Round trips: create, get, read, release, complete,
 * begin, finish and abandon 1 each; a claim 1 (2 when refused or failed: the record is read); decide
 * 2 (read, then write); begin 2 when it takes over a lapsed lease or an expired item. Store failures
 * other than a refused condition become `StoreUnavailable` errors (retryable).
 *
 * @example
 * import { DynamoApprovalStore } from 'cdk-tool-handler/lambda';
 *
 * // The table as the construct creates it (partition key `pk`, the `approvals` index).
 * const store = new DynamoApprovalStore({ tableName: process.env.APPROVALS_TABLE! });
 * const page = await store.listPage({ status: 'pending', limit: 10 });
 * console.log(`${page.records.length} pending`);
 * for (const approval of page.records) console.log(approval.approvalId, approval.tool, approval.args);
 */
export class DynamoApprovalStore extends DynamoHandlerStore implements ApprovalStore {
  get(approvalId: string): Promise<ApprovalRecord | undefined> {
    return getApproval(this.table, approvalId);
  }

  read(approvalId: string): Promise<ApprovalRecord | undefined> {
    return readApproval(this.table, approvalId);
  }

  decide(approvalId: string, decision: DecideInput): Promise<ApprovalRecord> {
    return decideApproval(this.table, approvalId, decision);
  }

  list(input?: ListApprovalsInput): Promise<ApprovalRecord[]> {
    return listApprovals(this.table, input);
  }

  listPage(input?: ListPageInput): Promise<ListPage> {
    return listPage(this.table, input);
  }

  expireDue(): Promise<ExpiryRun> {
    return expireDue(this.table);
  }

  retryExpiry(approvalId: string): Promise<void> {
    return retryExpiry(this.table, approvalId);
  }
}

/**
 * What a tool handler needs of the approvals table: the running side of approvals (create, claim,
 * release, complete) and the call items (dynamo-call-store.ts). `DynamoApprovalStore` adds the
 * approvers' and operators' side; a handler's bundle that names only this class carries none of it.
 */
import { claimApproval, completeApproval, createApproval, releaseApproval } from './dynamo-approvals';
import { DynamoCallStore } from './dynamo-call-store';
import type { ClaimInput, ClaimOutcome, CreateApprovalInput, CreateApprovalOutcome, HandlerApprovalStore } from './types';

export type { DynamoApprovalStoreProps } from './dynamo-call-store';

/**
 * The approvals table as a tool handler uses it (what `toolHandler` makes from
 * `TOOL_HANDLER_APPROVALS_TABLE` when no approvals engine is named). Round trips: create, release,
 * complete, begin, finish, abandon and countCall 1 each; a claim 1 (2 when refused or failed: the record is
 * read); begin 2 when it takes over a lapsed lease or an expired item.
 *
 * @example
 * import { DynamoHandlerStore, ToolExecutor, toolHandler } from 'cdk-tool-handler/lambda';
 *
 * const store = new DynamoHandlerStore({ tableName: process.env.APPROVALS_TABLE! });
 * export const handler = toolHandler(new ToolExecutor({ tools, approvals: store }));
 */
export class DynamoHandlerStore extends DynamoCallStore implements HandlerApprovalStore {
  create(input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
    return createApproval(this.table, input);
  }

  claim(approvalId: string, input: ClaimInput): Promise<ClaimOutcome> {
    return claimApproval(this.table, approvalId, input);
  }

  release(approvalId: string, token: string): Promise<void> {
    return releaseApproval(this.table, approvalId, token);
  }

  complete(approvalId: string, token: string, result: unknown): Promise<void> {
    return completeApproval(this.table, approvalId, token, result);
  }
}

/**
 * Approvals and duplicate calls in one DynamoDB table (layout in `names.ts`).
 *
 * Every state change is one conditional write:
 * - dynamo-approvals.ts: the running side of approvals (create, get, read, claim, release, complete),
 *   which the approvals engine runs for handlers;
 * - dynamo-decisions.ts: the approvers' and operators' side (decide, list), which the approvals API runs;
 * - dynamo-calls.ts: duplicate calls (begin, finish, abandon), which the handler runs itself.
 * The decision attributes are written only by `decide`.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  claimApproval,
  completeApproval,
  createApproval,
  getApproval,
  readApproval,
  releaseApproval,
} from './dynamo-approvals';
import { abandonCall, beginCall, finishCall } from './dynamo-calls';
import { decideApproval, listApprovals, listPage } from './dynamo-decisions';
import { expireDue } from './dynamo-expiry';
import { type TableContext, tableContext } from './dynamo-table';
import { configError } from '../errors';
import { resolveStoreOptions, type StoreOptions } from './options';
import type {
  ApprovalRecord,
  ApprovalStore,
  BeginInput,
  BeginOutcome,
  CallKey,
  CallStore,
  ClaimInput,
  ClaimOutcome,
  CreateApprovalInput,
  CreateApprovalOutcome,
  DecideInput,
  ExpiryRun,
  ListApprovalsInput,
  ListPage,
  ListPageInput,
} from './types';

export interface DynamoApprovalStoreProps extends StoreOptions {
  /**
   * The approvals table: partition key `pk` (string), TTL on `expiresAt` (epoch seconds), and for
   * `list` and `listPage` a global secondary index `approvals` keyed on `approvalId` (string).
   */
  readonly tableName: string;
  /**
   * The document client to use.
   * @default - one client per container, made on first use, in `AWS_REGION` (or
   * `AWS_DEFAULT_REGION`, or `us-east-1`); the SDK honours `AWS_ENDPOINT_URL_DYNAMODB`.
   */
  readonly client?: DynamoDBDocumentClient;
}

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
export class DynamoApprovalStore implements ApprovalStore, CallStore {
  private readonly table: TableContext;

  constructor(props: DynamoApprovalStoreProps) {
    if (typeof props.tableName !== 'string' || props.tableName.length === 0) {
      throw configError(`DynamoApprovalStore \`tableName\` must be a table name, got: ${JSON.stringify(props.tableName) ?? String(props.tableName)}.`);
    }
    const { ttlSeconds, now, owner } = resolveStoreOptions(props);
    this.table = tableContext({ tableName: props.tableName, client: props.client, ttlMs: ttlSeconds * 1000, now, owner });
  }

  create(input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
    return createApproval(this.table, input);
  }

  get(approvalId: string): Promise<ApprovalRecord | undefined> {
    return getApproval(this.table, approvalId);
  }

  read(approvalId: string): Promise<ApprovalRecord | undefined> {
    return readApproval(this.table, approvalId);
  }

  decide(approvalId: string, decision: DecideInput): Promise<ApprovalRecord> {
    return decideApproval(this.table, approvalId, decision);
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

  list(input?: ListApprovalsInput): Promise<ApprovalRecord[]> {
    return listApprovals(this.table, input);
  }

  listPage(input?: ListPageInput): Promise<ListPage> {
    return listPage(this.table, input);
  }

  expireDue(): Promise<ExpiryRun> {
    return expireDue(this.table);
  }

  begin(key: CallKey, input: BeginInput): Promise<BeginOutcome> {
    return beginCall(this.table, key, input);
  }

  finish(key: CallKey, token: string, reply: unknown): Promise<void> {
    return finishCall(this.table, key, token, reply);
  }

  abandon(key: CallKey, token: string): Promise<void> {
    return abandonCall(this.table, key, token);
  }
}

/**
 * The approvals table's call items, as a tool handler whose approvals go through the approvals
 * engine uses them: duplicate calls (begin, finish, abandon), rate-limit windows and the flows that
 * wait. `DynamoHandlerStore` adds the running side of approvals (create, claim, release, complete)
 * for a handler without an engine; a bundle that names only this class carries none of it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { abandonCall, beginCall, finishCall } from './dynamo-calls';
import { dynamoFlows } from './dynamo-flows';
import { countCall } from './dynamo-rate';
import { type TableContext, tableContext } from './dynamo-table';
import { configError } from '../errors';
import { resolveStoreOptions, type StoreOptions } from './options';
import type { BeginInput, BeginOutcome, CallKey, CallStore, FlowStore, RateWindow } from './types';

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
 * The call items of the approvals table (what `toolHandler` makes from `TOOL_HANDLER_APPROVALS_TABLE`
 * when an approvals engine is named). Round trips: begin, finish, abandon and countCall 1 each;
 * begin 2 when it takes over a lapsed lease or an expired item.
 */
export class DynamoCallStore implements CallStore {
  protected readonly table: TableContext;
  /** The `reply_to` of calls whose flows wait (docs/flows.md): flow items among the owner's call items. */
  readonly flows: FlowStore;

  constructor(props: DynamoApprovalStoreProps) {
    if (typeof props.tableName !== 'string' || props.tableName.length === 0) {
      throw configError(`DynamoDB store \`tableName\` must be the approvals table's name, got: ${JSON.stringify(props.tableName) ?? String(props.tableName)}.`);
    }
    const { ttlSeconds, now, owner } = resolveStoreOptions(props);
    this.table = tableContext({ tableName: props.tableName, client: props.client, ttlMs: ttlSeconds * 1000, now, owner });
    this.flows = dynamoFlows(this.table);
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

  countCall(window: RateWindow): Promise<boolean> {
    return countCall(this.table, window);
  }
}

/**
 * Approvals (§6b) and duplicate calls (§6a) in one DynamoDB table (layout in `names.ts`).
 *
 * Every state change is one conditional write, never a read then a write. Approvers' decision
 * attributes are written only by `decide`; every other operation leaves them alone, so IAM can
 * forbid the handler to write them.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ApprovalNotFound, storeUnavailable, ToolUsageError } from '../errors';
import { APPROVAL_ATTRIBUTES as A, DECISION, DECISION_ATTRIBUTES as D, HANDLER_OWNER, TABLE } from '../names';
import { abandonCall, beginCall, finishCall } from './dynamo-calls';
import { Expression } from './dynamo-expression';
import {
  approvalKey,
  isExpired,
  type Item,
  itemBytes,
  ITEM_KIND,
  LATER_ATTRIBUTES_RESERVE_BYTES,
  MAX_DECISION_TEXT_BYTES,
  MAX_ITEM_BYTES,
  nowInSeconds,
  toApprovalRecord,
  ttlSeconds,
  utf8Bytes,
} from './dynamo-items';
import { read, write } from './dynamo-send';
import { type TableContext, tableContext, warnTooLarge } from './dynamo-table';
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
  ListApprovalsInput,
} from './types';

export interface DynamoApprovalStoreProps extends StoreOptions {
  /** The approvals table: partition key `pk` (string), TTL on `expiresAt` (epoch seconds). */
  readonly tableName: string;
  /**
   * The document client to use.
   * @default - one client per container, made on first use, in `AWS_REGION` (or
   * `AWS_DEFAULT_REGION`, or `us-east-1`); the SDK honours `AWS_ENDPOINT_URL_DYNAMODB`.
   */
  readonly client?: DynamoDBDocumentClient;
}

/** A claim's `allowedTools` goes into the condition while DynamoDB's `IN` can hold it. */
const MAX_IN_OPERANDS = 100;

export class DynamoApprovalStore implements ApprovalStore, CallStore {
  private readonly table: TableContext;

  constructor(props: DynamoApprovalStoreProps) {
    if (typeof props.tableName !== 'string' || props.tableName.length === 0) {
      throw new RangeError(`tableName must be a table name, got: ${String(props.tableName)}`);
    }
    const { ttlSeconds: ttl, now } = resolveStoreOptions(props);
    this.table = tableContext({ tableName: props.tableName, client: props.client, ttlMs: ttl * 1000, now });
  }

  /** One upsert that sets each attribute only where absent: creates, or returns the approval as it stands. */
  async create(input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
    const now = this.table.now();
    const Key = approvalKey(input.approvalId);
    const argsJson = JSON.stringify(input.args);
    const fields: Record<string, string | number> = {
      [A.kind]: ITEM_KIND.approval,
      [A.approvalId]: input.approvalId,
      [A.tool]: input.tool,
      [A.args]: argsJson,
      [A.fingerprint]: input.fingerprint,
      [A.runId]: input.runId,
      [A.callId]: input.callId,
      [A.owner]: input.owner ?? HANDLER_OWNER,
      [A.createdAt]: now,
      [TABLE.ttlAttribute]: ttlSeconds(now + this.table.ttlMs),
    };
    const bytes = itemBytes({ ...Key, ...fields });
    if (bytes + LATER_ATTRIBUTES_RESERVE_BYTES > MAX_ITEM_BYTES) throw argsTooLarge(utf8Bytes(argsJson));

    const e = new Expression();
    const sets = Object.entries(fields).map(([attribute, value]) => e.setIfAbsent(attribute, value));
    const outcome = await write('create', () =>
      this.client().send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ReturnValues: 'ALL_OLD',
          ...e.params(),
        }),
      ),
    );
    if (!outcome.ok) {
      if (outcome.refusal === 'too_large') throw argsTooLarge(utf8Bytes(argsJson));
      throw storeUnavailable('create', new Error('unexpected refusal of an unconditional upsert'));
    }
    const old = outcome.value.Attributes as Item | undefined;
    if (!old) {
      return { created: true, record: toApprovalRecord({ ...Key, ...fields }), fingerprint: input.fingerprint };
    }
    if (isExpired(old, now)) {
      // Its decision attributes are the approver's: the handler may not erase them to start afresh.
      throw new ToolUsageError(
        `The approval ${input.approvalId} for this call expired; send the call again with a new run_id or call_id.`,
      );
    }
    return { created: false, record: toApprovalRecord(old), fingerprint: String(old[A.fingerprint]) };
  }

  async get(approvalId: string): Promise<ApprovalRecord | undefined> {
    const item = await this.getItem('get', approvalId);
    return item && !isExpired(item, this.table.now()) ? toApprovalRecord(item) : undefined;
  }

  async decide(approvalId: string, decision: DecideInput): Promise<ApprovalRecord> {
    const textBytes = utf8Bytes(decision.by) + utf8Bytes(decision.reason ?? '');
    if (textBytes > MAX_DECISION_TEXT_BYTES) {
      throw new ToolUsageError(
        `A decision's by and reason may take ${MAX_DECISION_TEXT_BYTES} bytes of UTF-8 together, got: ${textBytes}.`,
      );
    }
    const now = this.table.now();
    const e = new Expression();
    const sets = [
      e.equals(D.decision, decision.approved ? DECISION.approved : DECISION.denied),
      e.equals(D.decidedBy, decision.by),
      e.equals(D.decidedAt, now),
      ...(decision.reason === undefined ? [] : [e.equals(D.reason, decision.reason)]),
    ];
    const condition = [
      e.exists(TABLE.partitionKey),
      `${e.name(TABLE.ttlAttribute)} > ${e.value(nowInSeconds(now))}`,
      e.absent(D.decision),
    ];
    const outcome = await write('decide', () =>
      this.client().send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: approvalKey(approvalId),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: condition.join(' AND '),
          ReturnValues: 'ALL_NEW',
          ...e.params(),
        }),
      ),
    );
    if (outcome.ok) return toApprovalRecord(outcome.value.Attributes as Item);

    const current = await this.get(approvalId);
    if (!current) throw new ApprovalNotFound(`Approval ${approvalId} does not exist or has expired.`);
    if (outcome.refusal === 'too_large') throw new ToolUsageError(`The decision does not fit in approval ${approvalId}.`);
    throw new ToolUsageError(`Approval ${approvalId} is already decided (${current.status}).`);
  }

  /** One conditional update that returns the claimed record; a refused claim reads the record once. */
  async claim(approvalId: string, input: ClaimInput): Promise<ClaimOutcome> {
    const allowed = input.allowedTools;
    if (allowed?.size === 0) return { claimed: false, record: await this.get(approvalId) };
    const now = this.table.now();
    const token = randomUUID();
    const e = new Expression();
    const condition = [
      e.exists(TABLE.partitionKey),
      e.equals(A.owner, HANDLER_OWNER),
      e.equals(D.decision, DECISION.approved),
      `${e.name(TABLE.ttlAttribute)} > ${e.value(nowInSeconds(now))}`,
      e.absent(A.completedAt),
      `(${e.absent(A.claimedUntil)} OR ${e.name(A.claimedUntil)} <= ${e.value(now)})`,
    ];
    const toolsInCondition = allowed !== undefined && allowed.size <= MAX_IN_OPERANDS;
    if (toolsInCondition) {
      condition.push(`${e.name(A.tool)} IN (${[...allowed].map((tool) => e.value(tool)).join(', ')})`);
    }
    const update = `SET ${e.equals(A.claimToken, token)}, ${e.equals(A.claimedUntil, input.until)}`;
    const outcome = await write('claim', () =>
      this.client().send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: approvalKey(approvalId),
          UpdateExpression: update,
          ConditionExpression: condition.join(' AND '),
          ReturnValues: 'ALL_NEW',
          ...e.params(),
        }),
      ),
    );
    if (!outcome.ok) return { claimed: false, record: await this.get(approvalId) };

    const record = toApprovalRecord(outcome.value.Attributes as Item);
    if (allowed !== undefined && !toolsInCondition && !allowed.has(record.tool)) {
      await this.release(approvalId, token);
      const { claimedUntil: _released, ...unclaimed } = record;
      return { claimed: false, record: unclaimed };
    }
    return { claimed: true, record, token };
  }

  async release(approvalId: string, token: string): Promise<void> {
    const e = new Expression();
    // A refused condition means the claim is no longer ours: nothing to give back.
    await write('release', () =>
      this.client().send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: approvalKey(approvalId),
          UpdateExpression: `REMOVE ${e.name(A.claimedUntil)}, ${e.name(A.claimToken)}`,
          ConditionExpression: e.equals(A.claimToken, token),
          ...e.params(),
        }),
      ),
    );
  }

  /**
   * Marks the run finished and keeps its result as JSON. A result that would push the item past
   * DynamoDB's item limit is not kept (one warning line says so); the run is marked finished anyway.
   */
  async complete(approvalId: string, token: string, result: unknown): Promise<void> {
    const json = JSON.stringify(result) ?? 'null';
    const resultBytes = utf8Bytes(json);
    if (resultBytes + itemBytes(approvalKey(approvalId)) + 256 <= MAX_ITEM_BYTES) {
      const outcome = await this.writeCompletion(approvalId, token, json);
      if (outcome.ok || outcome.refusal === 'condition') return;
    }
    warnTooLarge('The result was too large to keep in the approval item; the approval is completed without it.', {
      approval_id: approvalId,
      result_bytes: resultBytes,
      limit_bytes: MAX_ITEM_BYTES,
    });
    await this.writeCompletion(approvalId, token, undefined);
  }

  /** Approvals not expired, oldest first (a paginated Scan: for operators, not for the handler). */
  async list(input?: ListApprovalsInput): Promise<ApprovalRecord[]> {
    const e = new Expression();
    const filter = [
      `begins_with(${e.name(TABLE.partitionKey)}, ${e.value(TABLE.approvalKeyPrefix)})`,
      `${e.name(TABLE.ttlAttribute)} > ${e.value(nowInSeconds(this.table.now()))}`,
      ...(input?.pending ? [e.absent(D.decision)] : []),
    ].join(' AND ');
    const records: ApprovalRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await read('list', () =>
        this.client().send(
          new ScanCommand({
            TableName: this.table.tableName,
            FilterExpression: filter,
            ConsistentRead: true,
            ExclusiveStartKey,
            ...e.params(),
          }),
        ),
      );
      for (const item of page.Items ?? []) records.push(toApprovalRecord(item));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return records.sort((a, b) => a.createdAt - b.createdAt || a.approvalId.localeCompare(b.approvalId));
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

  private client(): DynamoDBDocumentClient {
    return this.table.client();
  }

  private async getItem(operation: string, approvalId: string): Promise<Item | undefined> {
    const output = await read(operation, () =>
      this.client().send(
        new GetCommand({ TableName: this.table.tableName, Key: approvalKey(approvalId), ConsistentRead: true }),
      ),
    );
    return output.Item;
  }

  private writeCompletion(approvalId: string, token: string, resultJson: string | undefined) {
    const e = new Expression();
    const sets = [
      e.equals(A.completedAt, this.table.now()),
      ...(resultJson === undefined ? [] : [e.equals(A.result, resultJson)]),
    ];
    return write('complete', () =>
      this.client().send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: approvalKey(approvalId),
          UpdateExpression: `SET ${sets.join(', ')} REMOVE ${e.name(A.claimedUntil)}`,
          ConditionExpression: e.equals(A.claimToken, token),
          ...e.params(),
        }),
      ),
    );
  }
}

function argsTooLarge(argsBytes: number): ToolUsageError {
  return new ToolUsageError(
    `The approval's args are too large for an approval item: ${argsBytes} bytes of JSON, and an item may ` +
      `hold at most ${MAX_ITEM_BYTES} bytes (DynamoDB's 400 KB item limit) including ` +
      `${LATER_ATTRIBUTES_RESERVE_BYTES} bytes kept for the decision and the run.`,
  );
}

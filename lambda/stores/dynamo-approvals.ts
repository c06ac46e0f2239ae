/**
 * The handler's side of approvals (§6b): create, get, claim, release, complete. None of these
 * writes an approver's decision attributes (`decide` in dynamo-decisions.ts is the only one), so
 * IAM can forbid the handler to write them.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { storeUnavailable, ToolUsageError } from '../errors';
import { logWarning } from '../log';
import { APPROVAL_ATTRIBUTES as A, HANDLER_OWNER, TABLE } from '../names';
import { Expression } from './dynamo-expression';
import {
  approvalKey,
  isExpired,
  type Item,
  itemBytes,
  ITEM_KIND,
  LATER_ATTRIBUTES_RESERVE_BYTES,
  MAX_ITEM_BYTES,
  nowInSeconds,
  toApprovalRecord,
  ttlSeconds,
  utf8Bytes,
} from './dynamo-items';
import { read, write } from './dynamo-send';
import type { TableContext } from './dynamo-table';
import { upsertIfAbsent } from './dynamo-upsert';
import type { ApprovalRecord, ClaimInput, ClaimOutcome, CreateApprovalInput, CreateApprovalOutcome } from './types';

/** A claim's `allowedTools` goes into the condition while DynamoDB's `IN` can hold it. */
const MAX_IN_OPERANDS = 100;

/** One upsert that sets each attribute only where absent: creates, or returns the approval as it stands. */
export async function createApproval(table: TableContext, input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
  const now = table.now();
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
    [TABLE.ttlAttribute]: ttlSeconds(now + table.ttlMs),
  };
  if (itemBytes({ ...Key, ...fields }) + LATER_ATTRIBUTES_RESERVE_BYTES > MAX_ITEM_BYTES) {
    throw argsTooLarge(utf8Bytes(argsJson));
  }

  const outcome = await upsertIfAbsent(table, 'create', Key, fields);
  if (!outcome.ok) {
    if (outcome.refusal === 'too_large') throw argsTooLarge(utf8Bytes(argsJson));
    throw storeUnavailable('create', new Error('unexpected refusal of an unconditional upsert'));
  }
  const old = outcome.value;
  if (!old) {
    return { created: true, record: toApprovalRecord({ ...Key, ...fields }) };
  }
  if (isExpired(old, now)) {
    // Its decision attributes are the approver's: the handler may not erase them to start afresh.
    throw new ToolUsageError(
      `The approval ${input.approvalId} for this call expired; send the call again with a new run_id or call_id.`,
    );
  }
  return { created: false, record: toApprovalRecord(old) };
}

/** A consistent read; an expired item counts as absent. */
export async function getApproval(table: TableContext, approvalId: string): Promise<ApprovalRecord | undefined> {
  const output = await read('get', () =>
    table.client().send(new GetCommand({ TableName: table.tableName, Key: approvalKey(approvalId), ConsistentRead: true })),
  );
  const item = output.Item;
  return item && !isExpired(item, table.now()) ? toApprovalRecord(item) : undefined;
}

/**
 * One conditional update that returns the claimed record; a refused claim reads the record once.
 *
 * The condition names only the handler's own attributes: IAM counts an attribute named in a
 * condition as accessed, so testing `decision` here would need the very permission that lets the
 * handler write it. The decision is checked in the returned record instead, and a claim of an
 * undecided or denied approval is given back at once (a second write). Such a short-lived claim
 * cannot hide a decision: `decide` refuses while any claim is live, so a live claim on an approved
 * approval was always taken after the decision, by a run that will run the tool.
 */
export async function claimApproval(table: TableContext, approvalId: string, input: ClaimInput): Promise<ClaimOutcome> {
  const allowed = input.allowedTools;
  if (allowed?.size === 0) return { claimed: false, record: await getApproval(table, approvalId) };
  const now = table.now();
  const token = input.token ?? randomUUID();
  const e = new Expression();
  const condition = [
    e.exists(TABLE.partitionKey),
    e.equals(A.owner, HANDLER_OWNER),
    `${e.name(TABLE.ttlAttribute)} > ${e.value(nowInSeconds(now))}`,
    e.absent(A.completedAt),
    // Unclaimed, lapsed, or already ours (a retry of this claim, whose first answer was lost).
    `(${e.absent(A.claimedUntil)} OR ${e.name(A.claimedUntil)} <= ${e.value(now)} OR ${e.equals(A.claimToken, token)})`,
  ];
  const toolsInCondition = allowed !== undefined && allowed.size <= MAX_IN_OPERANDS;
  if (toolsInCondition) {
    condition.push(`${e.name(A.tool)} IN (${[...allowed].map((tool) => e.value(tool)).join(', ')})`);
  }
  const update = `SET ${e.equals(A.claimToken, token)}, ${e.equals(A.claimedUntil, input.until)}`;
  const outcome = await write('claim', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(approvalId),
        UpdateExpression: update,
        ConditionExpression: condition.join(' AND '),
        ReturnValues: 'ALL_NEW',
        ...e.params(),
      }),
    ),
  ).catch((error: unknown) => ownClaimAfterFailure(table, approvalId, token, error));
  let item: Item;
  if (outcome.ok) item = outcome.value.Attributes as Item;
  else {
    const found = await readAfterRefusal(table, approvalId, token);
    if (!found.ours) return { claimed: false, record: found.record };
    item = found.ours;
  }

  const record = toApprovalRecord(item);
  const toolRefused = allowed !== undefined && !toolsInCondition && !allowed.has(record.tool);
  if (record.status !== 'approved' || toolRefused) {
    await releaseApproval(table, approvalId, token);
    const { claimedUntil: _released, ...unclaimed } = record;
    return { claimed: false, record: unclaimed };
  }
  return { claimed: true, record, token };
}

/** What one read after a refused or failed claim found. */
type ClaimRead = { readonly ours: Item } | { readonly ours?: undefined; readonly record: ApprovalRecord | undefined };

/**
 * One consistent read after a refused claim: a live, unfinished claim with our token is our own
 * (applied by an attempt whose answer was lost); anything else is the approval as it stands.
 */
async function readAfterRefusal(table: TableContext, approvalId: string, token: string): Promise<ClaimRead> {
  const output = await read('claim', () =>
    table.client().send(new GetCommand({ TableName: table.tableName, Key: approvalKey(approvalId), ConsistentRead: true })),
  );
  const item = output.Item;
  const now = table.now();
  if (!item || isExpired(item, now)) return { record: undefined };
  const claimedUntil = item[A.claimedUntil];
  const ours = item[A.claimToken] === token && typeof claimedUntil === 'number' && claimedUntil > now && item[A.completedAt] === undefined;
  return ours ? { ours: item } : { record: toApprovalRecord(item) };
}

/**
 * After a claim write that failed (every SDK attempt): one may still have been applied, and its
 * claim would then stand until it lapses while every redelivery sees it as another run's. So the
 * item is read: a live claim with our token is ours; otherwise (or if the read fails too) the
 * write's own error stands.
 */
async function ownClaimAfterFailure(table: TableContext, approvalId: string, token: string, error: unknown) {
  const found = await readAfterRefusal(table, approvalId, token).catch(() => undefined);
  if (!found?.ours) throw error;
  return { ok: true as const, value: { Attributes: found.ours } };
}

export async function releaseApproval(table: TableContext, approvalId: string, token: string): Promise<void> {
  const e = new Expression();
  // A refused condition means the claim is no longer ours: nothing to give back.
  await write('release', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
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
export async function completeApproval(
  table: TableContext,
  approvalId: string,
  token: string,
  result: unknown,
): Promise<void> {
  const json = JSON.stringify(result) ?? 'null';
  const resultBytes = utf8Bytes(json);
  // Only a result that cannot fit whatever the args skips the attempt; DynamoDB judges the rest.
  if (resultBytes + itemBytes(approvalKey(approvalId)) + 256 <= MAX_ITEM_BYTES) {
    const outcome = await writeCompletion(table, approvalId, token, json);
    if (outcome.ok || outcome.refusal === 'condition') return;
  }
  logWarning('The result was too large to keep in the approval item; the approval is completed without it.', {
    approval_id: approvalId,
    result_bytes: resultBytes,
    limit_bytes: MAX_ITEM_BYTES,
  });
  await writeCompletion(table, approvalId, token, undefined);
}

/** A refused condition (someone else's claim) comes back as a refusal, for the caller to ignore. */
function writeCompletion(table: TableContext, approvalId: string, token: string, resultJson: string | undefined) {
  const e = new Expression();
  const sets = [
    e.equals(A.completedAt, table.now()),
    ...(resultJson === undefined ? [] : [e.equals(A.result, resultJson)]),
  ];
  return write('complete', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(approvalId),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${e.name(A.claimedUntil)}`,
        ConditionExpression: e.equals(A.claimToken, token),
        ...e.params(),
      }),
    ),
  );
}

function argsTooLarge(argsBytes: number): ToolUsageError {
  return new ToolUsageError(
    `The approval's args are too large for an approval item: ${argsBytes} bytes of JSON, and an item may ` +
      `hold at most ${MAX_ITEM_BYTES} bytes (DynamoDB's 400 KB item limit) including ` +
      `${LATER_ATTRIBUTES_RESERVE_BYTES} bytes kept for the decision and the run.`,
  );
}

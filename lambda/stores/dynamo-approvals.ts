/**
 * The running side of approvals: create, get, read, claim, release, complete: what the
 * approvals engine does for a handler. None of these writes a decision attribute (`decide` in
 * dynamo-decisions.ts is the only one) and none removes `completedAt`.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { storeUnavailable, ToolUsageError } from '../errors';
import { callFingerprint } from '../ids';
import { logWarning } from '../log';
import { APPROVAL_ATTRIBUTES as A, DECISION, DECISION_ATTRIBUTES as D, TABLE } from '../construct-contract';
import { Expression } from './dynamo-expression';
import { callApprovalExpired } from './store-errors';
import { newApprovalRecord } from './approval-record';
import { claimMaySee } from './claim-scope';
import {
  approvalKey,
  APPROVAL_DELETE_GRACE_MS,
  createdAttributes,
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
import { read, type TableContext, upsertIfAbsent, write } from './dynamo-table';
import type { ApprovalRecord, ClaimInput, ClaimOutcome, CreateApprovalInput, CreateApprovalOutcome } from './types';

/** A claim's `allowedTools` goes into the condition while DynamoDB's `IN` can hold it. */
const MAX_IN_OPERANDS = 100;

/**
 * One upsert that sets each attribute only where absent: creates, or returns the approval as it
 * stands. An existing approval's tool, args, fingerprint and owner are never changed. A decided or
 * expired approval refuses the upsert (its `pendingOwner` is gone and must stay gone, or it would
 * be listed as pending again) and is read instead: a second round trip, only for such a redelivery.
 */
export async function createApproval(table: TableContext, input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
  if (input.owner !== undefined && input.owner !== table.owner) {
    throw new ToolUsageError(
      `This store keeps the approvals of owner ${table.owner} only (its key space), got an approval for owner ${input.owner}.`,
    );
  }
  const now = table.now();
  const Key = approvalKey(table.owner, input.approvalId);
  const fields: Record<string, string | number> = {
    [A.kind]: ITEM_KIND.approval,
    ...createdAttributes(newApprovalRecord(input, table.owner, now, table.ttlMs)),
    [A.pendingOwner]: table.owner,
    [TABLE.ttlAttribute]: ttlSeconds(now + table.ttlMs + APPROVAL_DELETE_GRACE_MS),
  };
  const argsJson = String(fields[A.args]);
  if (itemBytes({ ...Key, ...fields }) + LATER_ATTRIBUTES_RESERVE_BYTES > MAX_ITEM_BYTES) {
    throw argsTooLarge(utf8Bytes(argsJson));
  }

  const outcome = await upsertIfAbsent(
    table,
    'create',
    Key,
    fields,
    (e) => `${e.absent(TABLE.partitionKey)} OR ${e.exists(A.pendingOwner)}`,
  );
  if (!outcome.ok && outcome.refusal === 'too_large') throw argsTooLarge(utf8Bytes(argsJson));
  const old = outcome.ok ? outcome.value : await readItem(table, input.approvalId, 'create');
  if (!outcome.ok && !old) throw storeUnavailable('create', new Error('the approval vanished between the write and the read'));
  if (!old) {
    return { created: true, record: toApprovalRecord({ ...Key, ...fields }, now) };
  }
  if (isExpired(old, now)) {
    // Its decision attributes are the approver's: an expired approval is never started afresh.
    throw callApprovalExpired(input.approvalId);
  }
  return { created: false, record: toApprovalRecord(old, now) };
}

/** A consistent read; an expired item counts as absent. */
export async function getApproval(table: TableContext, approvalId: string): Promise<ApprovalRecord | undefined> {
  const record = await readApproval(table, approvalId);
  return record && record.expiresAt > table.now() ? record : undefined;
}

/** A consistent read of the approval whatever its status (an undecided one past its expiry is `expired`). */
export async function readApproval(table: TableContext, approvalId: string, operation = 'get'): Promise<ApprovalRecord | undefined> {
  const item = await readItem(table, approvalId, operation);
  return item ? toApprovalRecord(item, table.now()) : undefined;
}

async function readItem(table: TableContext, approvalId: string, operation = 'get'): Promise<Item | undefined> {
  const output = await read(table, operation, () =>
    table.client().send(new GetCommand({ TableName: table.tableName, Key: approvalKey(table.owner, approvalId), ConsistentRead: true })),
  );
  return output.Item;
}

/**
 * One conditional update that succeeds only on an approved, unfinished, unexpired approval of the
 * store's owner, unclaimed (or lapsed), whose `fingerprint` equals the decision's
 * `decidedFingerprint`, and whose tool may run. A refused claim reads the record once: if it holds
 * our token, live (the claim's answer was lost and the SDK's retry was refused), it is ours, as it
 * stands: taking a claim again with the same token never extends it, so no caller can hold an
 * approval past its first claim's `until`.
 */
export async function claimApproval(table: TableContext, approvalId: string, input: ClaimInput): Promise<ClaimOutcome> {
  const allowed = input.allowedTools;
  if (allowed?.size === 0) return { claimed: false, record: visibleTo(input, await getApproval(table, approvalId)) };
  const now = table.now();
  const token = input.token ?? randomUUID();
  const e = new Expression();
  const condition = [
    e.exists(TABLE.partitionKey),
    e.equals(A.owner, table.owner),
    `${e.name(TABLE.expiresAttribute)} > ${e.value(nowInSeconds(now))}`,
    e.equals(D.decision, DECISION.approved),
    `${e.name(D.decidedFingerprint)} = ${e.name(A.fingerprint)}`,
    e.absent(A.completedAt),
    `(${e.absent(A.claimedUntil)} OR ${e.name(A.claimedUntil)} <= ${e.value(now)})`,
  ];
  if (input.runIdPrefix !== undefined) condition.push(`begins_with(${e.name(A.runId)}, ${e.value(input.runIdPrefix)})`);
  if (input.requestedBy === null) condition.push(e.absent(A.requestedById));
  else if (input.requestedBy !== undefined) condition.push(e.equals(A.requestedById, input.requestedBy));
  const toolsInCondition = allowed !== undefined && allowed.size <= MAX_IN_OPERANDS;
  if (toolsInCondition) {
    condition.push(`${e.name(A.tool)} IN (${[...allowed].map((tool) => e.value(tool)).join(', ')})`);
  }
  const update = `SET ${e.equals(A.claimToken, token)}, ${e.equals(A.claimedUntil, input.until)}`;
  const outcome = await write(table, 'claim', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(table.owner, approvalId),
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
    if (!found.ours) return { claimed: false, record: visibleTo(input, found.record) };
    item = found.ours;
  }

  const record = toApprovalRecord(item, table.now());
  const toolRefused = allowed !== undefined && !toolsInCondition && !allowed.has(record.tool);
  // The condition compared the stored fingerprint; this checks that the stored args still hash to it.
  const notDecidedOn = callFingerprint(record.tool, record.args) !== record.decidedFingerprint;
  if (toolRefused || notDecidedOn) {
    await releaseApproval(table, approvalId, token);
    const { claimedUntil: _released, ...unclaimed } = record;
    return { claimed: false, record: unclaimed };
  }
  return { claimed: true, record, token };
}

/** The record, unless a claim limited to some approvals may not see it (claim-scope.ts): then it is as if missing. */
function visibleTo(input: ClaimInput, record: ApprovalRecord | undefined): ApprovalRecord | undefined {
  return record && claimMaySee(input, record) ? record : undefined;
}

/** What one read after a refused or failed claim found. */
type ClaimRead = { readonly ours: Item } | { readonly ours?: undefined; readonly record: ApprovalRecord | undefined };

/**
 * One consistent read after a refused claim: a live, unfinished claim with our token is our own
 * (applied by an attempt whose answer was lost); anything else is the approval as it stands.
 */
async function readAfterRefusal(table: TableContext, approvalId: string, token: string): Promise<ClaimRead> {
  const item = await readItem(table, approvalId, 'claim');
  const now = table.now();
  if (!item || isExpired(item, now)) return { record: undefined };
  const claimedUntil = item[A.claimedUntil];
  const ours = item[A.claimToken] === token && typeof claimedUntil === 'number' && claimedUntil > now && item[A.completedAt] === undefined;
  return ours ? { ours: item } : { record: toApprovalRecord(item, now) };
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

/** Gives the claim back, if it is still this token's and the run did not finish. */
export async function releaseApproval(table: TableContext, approvalId: string, token: string): Promise<void> {
  const e = new Expression();
  // A refused condition means the claim is no longer ours: nothing to give back.
  await write(table, 'release', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(table.owner, approvalId),
        UpdateExpression: `REMOVE ${e.name(A.claimedUntil)}, ${e.name(A.claimToken)}`,
        ConditionExpression: `${e.equals(A.claimToken, token)} AND ${e.absent(A.completedAt)}`,
        ...e.params(),
      }),
    ),
  );
}

/**
 * Marks the run finished and keeps its result as JSON. A result that would push the item past
 * DynamoDB's item limit is not kept (one warning line says so); the run is marked finished anyway.
 * The token stays on the item, so a repeated completion (a retry whose first answer was lost) is
 * refused harmlessly.
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
  if (resultBytes + itemBytes(approvalKey(table.owner, approvalId)) + 256 <= MAX_ITEM_BYTES) {
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

/** A refused condition (someone else's claim, or already completed) comes back as a refusal, to ignore. */
function writeCompletion(table: TableContext, approvalId: string, token: string, resultJson: string | undefined) {
  const e = new Expression();
  const sets = [
    e.equals(A.completedAt, table.now()),
    ...(resultJson === undefined ? [] : [e.equals(A.result, resultJson)]),
  ];
  return write(table, 'complete', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(table.owner, approvalId),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${e.name(A.claimedUntil)}`,
        ConditionExpression: `${e.equals(A.claimToken, token)} AND ${e.absent(A.completedAt)}`,
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

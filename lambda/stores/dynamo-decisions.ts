/**
 * The approvers' and operators' side of approvals: `decide` (the only writer of the decision
 * attributes) and listing. The approvals API runs these; the handler and the engine call neither.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ToolUsageError } from '../errors';
import { callFingerprint } from '../ids';
import { APPROVAL_ATTRIBUTES as A, DECISION, DECISION_ATTRIBUTES as D, TABLE } from '../construct-contract';
import { approvalMissing, decisionRefused, unknownPosition } from './store-errors';
import { readApproval } from './dynamo-approvals';
import { Expression } from './dynamo-expression';
import { approvalKey, approvalKeyPrefix, type Item, MAX_DECISION_TEXT_BYTES, nowInSeconds, toApprovalRecord, utf8Bytes } from './dynamo-items';
import { read, type TableContext, write } from './dynamo-table';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './options';
import type { ApprovalRecord, ApprovalStatus, DecideInput, ListApprovalsInput, ListPage, ListPageInput } from './types';

/**
 * Reads the approval, then one conditional update: only a live, undecided approval whose tool and
 * args are still the ones read takes the decision, bound to their hash (`decidedFingerprint`).
 */
export async function decideApproval(table: TableContext, approvalId: string, decision: DecideInput): Promise<ApprovalRecord> {
  const textBytes = utf8Bytes(decision.by) + utf8Bytes(decision.reason ?? '');
  if (textBytes > MAX_DECISION_TEXT_BYTES) {
    throw new ToolUsageError(
      `A decision's by and reason may take ${MAX_DECISION_TEXT_BYTES} bytes of UTF-8 together, got: ${textBytes}.`,
    );
  }
  const current = await readApproval(table, approvalId, 'decide');
  const fingerprint = current && callFingerprint(current.tool, current.args);
  refuseUnlessDecidable(approvalId, current, fingerprint, decision);

  const now = table.now();
  const e = new Expression();
  const sets = [
    e.equals(D.decision, decision.approved ? DECISION.approved : DECISION.denied),
    e.equals(D.decidedBy, decision.by),
    e.equals(D.decidedAt, now),
    e.equals(D.decidedFingerprint, fingerprint),
    ...(decision.reason === undefined ? [] : [e.equals(D.reason, decision.reason)]),
  ];
  const condition = [
    e.exists(TABLE.partitionKey),
    `${e.name(TABLE.expiresAttribute)} > ${e.value(nowInSeconds(now))}`,
    e.absent(D.decision),
    e.absent(A.expiredAt),
    e.equals(A.tool, current!.tool),
    e.equals(A.args, JSON.stringify(current!.args)),
  ];
  const outcome = await write(table, 'decide', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(table.owner, approvalId),
        // Out of the pending index: a decided approval is no longer pending.
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${e.name(A.pendingOwner)}`,
        ConditionExpression: condition.join(' AND '),
        ReturnValues: 'ALL_NEW',
        ...e.params(),
      }),
    ),
  );
  if (outcome.ok) return toApprovalRecord(outcome.value.Attributes as Item, now);
  if (outcome.refusal === 'too_large') throw new ToolUsageError(`The decision does not fit in approval ${approvalId}.`);
  // Something changed between the read and the write (another decision, most likely): say what.
  const after = await readApproval(table, approvalId, 'decide');
  refuseUnlessDecidable(approvalId, after, after && callFingerprint(after.tool, after.args), decision);
  throw decisionRefused('changed', approvalId);
}

/** Throws what the approvals API answers with 404 or 409 for an approval that cannot take this decision. */
function refuseUnlessDecidable(
  approvalId: string,
  current: ApprovalRecord | undefined,
  fingerprint: string | undefined,
  decision: DecideInput,
): void {
  if (!current) throw approvalMissing(approvalId);
  if (current.status === 'expired') throw decisionRefused('expired', approvalId);
  if (current.status !== 'pending') throw decisionRefused('already_decided', approvalId, current.status);
  if (decision.fingerprint !== undefined && decision.fingerprint !== fingerprint) {
    throw decisionRefused('fingerprint_mismatch', approvalId);
  }
}

/** Live approvals (of every status but expired, or only pending ones), oldest first: every page. */
export async function listApprovals(table: TableContext, input?: ListApprovalsInput): Promise<ApprovalRecord[]> {
  const records: ApprovalRecord[] = [];
  let next: string | undefined;
  do {
    const page = await listPage(table, { status: input?.pending ? 'pending' : undefined, limit: MAX_PAGE_LIMIT, next });
    records.push(...page.records.filter((record) => record.expiresAt > table.now()));
    next = page.next;
  } while (next);
  return records.sort((a, b) => a.createdAt - b.createdAt || a.approvalId.localeCompare(b.approvalId));
}

/**
 * One page of the owner's approvals, read through a per-owner index (eventually consistent, as every
 * index read is), never a Scan: `pending` from the sparse pending index (only live pending
 * approvals, soonest expiry first), anything else from the owner's index of every approval, newest
 * first (a decided or expired status filters that index). `next` is the index position, opaque to
 * callers, and only ever a position in this owner's partition of the index it came from.
 */
export async function listPage(table: TableContext, input: ListPageInput = {}): Promise<ListPage> {
  const limit = input.limit ?? DEFAULT_PAGE_LIMIT;
  const now = table.now();
  const pending = input.status === 'pending';
  const index = pending ? PENDING_INDEX : OWNER_INDEX;
  const start = decodeNext(input.next, index, table.owner);
  const e = new Expression();
  const keyCondition = pending
    ? `${e.equals(index.partitionKey, table.owner)} AND ${e.name(index.sortKey)} > ${e.value(nowInSeconds(now))}`
    : e.equals(index.partitionKey, table.owner);
  const filter = pending ? undefined : statusFilter(e, input.status, nowInSeconds(now));
  const page = await read(table, 'list', () =>
    table.client().send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: index.name,
        KeyConditionExpression: keyCondition,
        ...(filter ? { FilterExpression: filter } : {}),
        ScanIndexForward: pending,
        Limit: limit,
        ExclusiveStartKey: start,
        ...e.params(),
      }),
    ),
  );
  const records = (page.Items ?? []).map((item) => toApprovalRecord(item, now));
  return { records, ...(page.LastEvaluatedKey ? { next: encodeNext(page.LastEvaluatedKey) } : {}) };
}

/** An index the lists read, and the key attributes of its positions. */
interface ListIndex {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

const PENDING_INDEX: ListIndex = { name: TABLE.pendingIndex, partitionKey: TABLE.pendingIndexKey, sortKey: TABLE.expiresAttribute };
const OWNER_INDEX: ListIndex = { name: TABLE.ownerIndex, partitionKey: TABLE.ownerIndexKey, sortKey: TABLE.ownerIndexSortKey };

function statusFilter(e: Expression, status: ApprovalStatus | undefined, nowSeconds: number): string | undefined {
  switch (status) {
    case undefined:
    case 'pending':
      return undefined;
    case 'expired':
      return `${e.absent(D.decision)} AND (${e.exists(A.expiredAt)} OR ${e.name(TABLE.expiresAttribute)} <= ${e.value(nowSeconds)})`;
    case 'approved':
      return e.equals(D.decision, DECISION.approved);
    case 'denied':
      // Any value other than `approved` reads as a denial (records fail closed).
      return `${e.exists(D.decision)} AND ${e.name(D.decision)} <> ${e.value(DECISION.approved)}`;
  }
}

function encodeNext(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * A position this list gave: exactly the index's key attributes (the table's `pk`, the index's
 * partition and sort keys), in this owner's partition, with this owner's item key. Anything else is
 * refused before DynamoDB sees it.
 */
function decodeNext(next: string | undefined, index: ListIndex, owner: string): Record<string, unknown> | undefined {
  if (next === undefined) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(next, 'base64url').toString('utf8'));
  } catch {
    throw unknownPosition();
  }
  const fields = typeof key === 'object' && key !== null && !Array.isArray(key) ? (key as Record<string, unknown>) : undefined;
  const names = fields ? Object.keys(fields).sort() : [];
  const expected = [TABLE.partitionKey, index.partitionKey, index.sortKey].sort();
  const valid =
    fields !== undefined &&
    names.length === expected.length &&
    names.every((name, i) => name === expected[i]) &&
    fields[index.partitionKey] === owner &&
    typeof fields[TABLE.partitionKey] === 'string' &&
    (fields[TABLE.partitionKey] as string).startsWith(approvalKeyPrefix(owner)) &&
    typeof fields[index.sortKey] === 'number';
  if (!valid) throw unknownPosition();
  return fields;
}

/**
 * Expiry: undecided approvals past `expiresAt` are marked `expired` with one conditional write
 * each (`expiredAt`, never a decision attribute; out of the pending index), so that deciding them is
 * refused and the expirer announces each exactly when it marked it. One Query of the owner's pending
 * index (which holds pending approvals only, due first) finds the due ones and counts the others,
 * with the oldest's creation time: the expirer's figures. It reads what is pending,
 * never history.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { APPROVAL_ATTRIBUTES as A, DECISION_ATTRIBUTES as D, TABLE } from '../construct-contract';
import { Expression } from './dynamo-expression';
import { approvalKey, type Item, nowInSeconds, toApprovalRecord } from './dynamo-items';
import { read, type TableContext, write } from './dynamo-table';
import type { ApprovalRecord, ExpiryRun } from './types';

/** Marks every undecided, unmarked approval of the store's owner past its expiry; returns those it marked and what stays pending. */
export async function expireDue(table: TableContext): Promise<ExpiryRun> {
  const at = table.now();
  const expired: ApprovalRecord[] = [];
  const retried: ApprovalRecord[] = [];
  let pending = 0;
  let oldestPendingCreatedAt: number | undefined;
  let start: Record<string, unknown> | undefined;
  do {
    const e = new Expression();
    const page = await read(table, 'expire', () =>
      table.client().send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: TABLE.pendingIndex,
          KeyConditionExpression: e.equals(TABLE.pendingIndexKey, table.owner),
          ProjectionExpression: [A.approvalId, A.createdAt, TABLE.expiresAttribute].map((name) => e.name(name)).join(', '),
          ExclusiveStartKey: start,
          ...e.params(),
        }),
      ),
    );
    const now = nowInSeconds(table.now());
    for (const item of page.Items ?? []) {
      if (Number(item[TABLE.expiresAttribute]) > now) {
        pending += 1;
        const createdAt = Number(item[A.createdAt]);
        oldestPendingCreatedAt = Math.min(oldestPendingCreatedAt ?? createdAt, createdAt);
        continue;
      }
      const record = await markExpired(table, String(item[A.approvalId]));
      // Marked by an earlier run (its time kept) and handed back by retryExpiry.
      if (record) (record.expiredAt !== undefined && record.expiredAt < at ? retried : expired).push(record);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { at, expired, retried, pending, ...(oldestPendingCreatedAt === undefined ? {} : { oldestPendingCreatedAt }) };
}

/**
 * One conditional write; `undefined` when someone decided (or marked) it first. An approval handed
 * back by `retryExpiry` (marked, yet in the pending index again) is taken again, keeping the time
 * it was first marked.
 */
async function markExpired(table: TableContext, approvalId: string): Promise<ApprovalRecord | undefined> {
  const now = table.now();
  const e = new Expression();
  const expiredAt = e.name(A.expiredAt);
  const outcome = await write(table, 'expire', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(table.owner, approvalId),
        UpdateExpression: `SET ${expiredAt} = if_not_exists(${expiredAt}, ${e.value(now)}) REMOVE ${e.name(A.pendingOwner)}`,
        ConditionExpression: [
          e.exists(TABLE.partitionKey),
          e.absent(D.decision),
          `(${e.absent(A.expiredAt)} OR ${e.exists(A.pendingOwner)})`,
          e.equals(A.owner, table.owner),
          `${e.name(TABLE.expiresAttribute)} <= ${e.value(nowInSeconds(now))}`,
        ].join(' AND '),
        ReturnValues: 'ALL_NEW',
        ...e.params(),
      }),
    ),
  );
  return outcome.ok ? toApprovalRecord(outcome.value.Attributes as Item, now) : undefined;
}

/** Puts an approval marked expired back in its owner's pending index, so that the next run takes it again. */
export async function retryExpiry(table: TableContext, approvalId: string): Promise<void> {
  const e = new Expression();
  await write(table, 'expire', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(table.owner, approvalId),
        UpdateExpression: `SET ${e.equals(A.pendingOwner, table.owner)}`,
        ConditionExpression: [e.exists(A.expiredAt), e.absent(D.decision), e.equals(A.owner, table.owner)].join(' AND '),
        ...e.params(),
      }),
    ),
  );
}

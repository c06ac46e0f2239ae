/**
 * Expiry: undecided approvals past `expiresAt` are marked `expired` with one conditional write
 * each (`expiredAt`, never a decision attribute; out of the pending index), so that deciding them is
 * refused and the expirer announces each exactly when it marked it. Due approvals are found by a
 * Query of the owner's pending index up to now: it reads what is due, nothing else.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { APPROVAL_ATTRIBUTES as A, DECISION_ATTRIBUTES as D, TABLE } from '../names';
import { Expression } from './dynamo-expression';
import { approvalKey, type Item, nowInSeconds, toApprovalRecord } from './dynamo-items';
import { read, type TableContext, write } from './dynamo-table';
import type { ApprovalRecord } from './types';

/** Marks every undecided, unmarked approval of the store's owner past its expiry; returns those it marked. */
export async function expireDue(table: TableContext): Promise<ApprovalRecord[]> {
  const marked: ApprovalRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const now = table.now();
    const e = new Expression();
    const page = await read('expire', () =>
      table.client().send(
        new QueryCommand({
          TableName: table.tableName,
          IndexName: TABLE.pendingIndex,
          KeyConditionExpression: `${e.equals(TABLE.pendingIndexKey, table.owner)} AND ${e.name(TABLE.expiresAttribute)} <= ${e.value(nowInSeconds(now))}`,
          ExclusiveStartKey: start,
          ...e.params(),
        }),
      ),
    );
    for (const item of page.Items ?? []) {
      const record = await markExpired(table, String(item[A.approvalId]));
      if (record) marked.push(record);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return marked;
}

/** One conditional write; `undefined` when someone decided (or marked) it first. */
async function markExpired(table: TableContext, approvalId: string): Promise<ApprovalRecord | undefined> {
  const now = table.now();
  const e = new Expression();
  const outcome = await write('expire', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(table.owner, approvalId),
        UpdateExpression: `SET ${e.equals(A.expiredAt, now)} REMOVE ${e.name(A.pendingOwner)}`,
        ConditionExpression: [
          e.exists(TABLE.partitionKey),
          e.absent(D.decision),
          e.absent(A.expiredAt),
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

/**
 * The approvers' and operators' side of approvals: `decide` (the only writer of the decision
 * attributes) and `list`. The handler itself calls neither.
 */
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ApprovalNotFound, ToolUsageError } from '../errors';
import { DECISION, DECISION_ATTRIBUTES as D, TABLE } from '../names';
import { getApproval } from './dynamo-approvals';
import { Expression } from './dynamo-expression';
import { approvalKey, type Item, MAX_DECISION_TEXT_BYTES, nowInSeconds, toApprovalRecord, utf8Bytes } from './dynamo-items';
import { read, write } from './dynamo-send';
import type { TableContext } from './dynamo-table';
import type { ApprovalRecord, DecideInput, ListApprovalsInput } from './types';

/** One conditional update: only a live, undecided approval takes a decision. */
export async function decideApproval(
  table: TableContext,
  approvalId: string,
  decision: DecideInput,
): Promise<ApprovalRecord> {
  const textBytes = utf8Bytes(decision.by) + utf8Bytes(decision.reason ?? '');
  if (textBytes > MAX_DECISION_TEXT_BYTES) {
    throw new ToolUsageError(
      `A decision's by and reason may take ${MAX_DECISION_TEXT_BYTES} bytes of UTF-8 together, got: ${textBytes}.`,
    );
  }
  const now = table.now();
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
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: approvalKey(approvalId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: condition.join(' AND '),
        ReturnValues: 'ALL_NEW',
        ...e.params(),
      }),
    ),
  );
  if (outcome.ok) return toApprovalRecord(outcome.value.Attributes as Item);

  // Refused: one read says why.
  const current = await getApproval(table, approvalId);
  if (!current) throw new ApprovalNotFound(`Approval ${approvalId} does not exist or has expired.`);
  if (outcome.refusal === 'too_large') throw new ToolUsageError(`The decision does not fit in approval ${approvalId}.`);
  throw new ToolUsageError(`Approval ${approvalId} is already decided (${current.status}).`);
}

/** Approvals not expired, oldest first: a paginated Scan, for operators. */
export async function listApprovals(table: TableContext, input?: ListApprovalsInput): Promise<ApprovalRecord[]> {
  const e = new Expression();
  const filter = [
    `begins_with(${e.name(TABLE.partitionKey)}, ${e.value(TABLE.approvalKeyPrefix)})`,
    `${e.name(TABLE.ttlAttribute)} > ${e.value(nowInSeconds(table.now()))}`,
    ...(input?.pending ? [e.absent(D.decision)] : []),
  ].join(' AND ');
  const records: ApprovalRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await read('list', () =>
      table.client().send(
        new ScanCommand({
          TableName: table.tableName,
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

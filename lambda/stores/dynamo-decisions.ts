/**
 * The approvers' and operators' side of approvals: `decide` (the only writer of the decision
 * attributes) and `list`. The handler itself calls neither.
 */
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AdapterError, ApprovalNotFound, ToolUsageError } from '../errors';
import { APPROVAL_ATTRIBUTES as A, DECISION, DECISION_ATTRIBUTES as D, TABLE } from '../names';
import { changedSinceSeen } from './decision-errors';
import { getApproval } from './dynamo-approvals';
import { Expression } from './dynamo-expression';
import { approvalKey, type Item, MAX_DECISION_TEXT_BYTES, nowInSeconds, toApprovalRecord, utf8Bytes } from './dynamo-items';
import { read, write } from './dynamo-send';
import type { TableContext } from './dynamo-table';
import type { ApprovalRecord, DecideInput, ListApprovalsInput } from './types';

/** How often, and after how long, a decision refused by a resume's momentary claim is tried again. */
const CLAIM_WAITS_MS = [10, 20, 40, 80, 160];

/**
 * One conditional update: only a live, undecided approval that no resume holds takes a decision.
 * A resume that arrives before the decision claims the approval for a moment to look at it (see
 * `claimApproval`), so a decision refused for a live claim on a pending approval is tried again a
 * few times; past that it is a retryable `AdapterError`.
 */
export async function decideApproval(
  table: TableContext,
  approvalId: string,
  decision: DecideInput,
): Promise<ApprovalRecord> {
  for (const waitMs of [...CLAIM_WAITS_MS, undefined]) {
    const outcome = await decideOnce(table, approvalId, decision);
    if (outcome.record) return outcome.record;
    if (waitMs === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  throw new AdapterError(
    `Approval ${approvalId} is held by a resume (a claim that has not lapsed); decide again later.`,
    { retryable: true },
  );
}

/** One attempt: the decided record, or `{}` when a live claim on the pending approval refused it. */
async function decideOnce(
  table: TableContext,
  approvalId: string,
  decision: DecideInput,
): Promise<{ record?: ApprovalRecord }> {
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
    `${e.name(D.decidedFingerprint)} = ${e.name(A.fingerprint)}`,
    ...(decision.reason === undefined ? [] : [e.equals(D.reason, decision.reason)]),
  ];
  const condition = [
    e.exists(TABLE.partitionKey),
    `${e.name(TABLE.ttlAttribute)} > ${e.value(nowInSeconds(now))}`,
    e.absent(D.decision),
    `(${e.absent(A.claimedUntil)} OR ${e.name(A.claimedUntil)} <= ${e.value(now)})`,
    ...(decision.fingerprint === undefined ? [] : [e.equals(A.fingerprint, decision.fingerprint)]),
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
  if (outcome.ok) return { record: toApprovalRecord(outcome.value.Attributes as Item) };

  // Refused: one read says why.
  const current = await getApproval(table, approvalId);
  if (!current) throw new ApprovalNotFound(`Approval ${approvalId} does not exist or has expired.`);
  if (outcome.refusal === 'too_large') throw new ToolUsageError(`The decision does not fit in approval ${approvalId}.`);
  if (current.status !== 'pending') throw new ToolUsageError(`Approval ${approvalId} is already decided (${current.status}).`);
  if (decision.fingerprint !== undefined && decision.fingerprint !== current.fingerprint) throw changedSinceSeen(approvalId);
  return {};
}

/**
 * Approvals not expired, oldest first, for operators: a paginated Scan of the approvals index (so
 * that readers need no access to the call items), eventually consistent as every index read is.
 */
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
          IndexName: TABLE.approvalsIndex,
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

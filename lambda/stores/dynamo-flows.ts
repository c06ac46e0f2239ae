/**
 * Flow items on the table (construct-contract.ts, `FLOW_ATTRIBUTES`): one per call that names a
 * `reply_to`, keyed by its approval id, among the owner's call items. Every operation is one
 * conditional UpdateItem; the completion's record is what makes a completion happen once.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { storeUnavailable } from '../errors';
import { FLOW_ATTRIBUTES as F, FLOW_KEY_MARK, TABLE } from '../construct-contract';
import { isReplyTo, type ReplyTo } from '../flows/reply-to';
import { Expression } from './dynamo-expression';
import { APPROVAL_DELETE_GRACE_MS, callKeyPrefix, ttlSeconds, type Item } from './dynamo-items';
import { type TableContext, write } from './dynamo-table';
import { FLOW_COMPLETION, type FlowStore } from './types';

export const FLOW_ITEM_KIND = 'flow';

export function flowKey(owner: string, approvalId: string): Record<string, string> {
  return { [TABLE.partitionKey]: callKeyPrefix(owner) + FLOW_KEY_MARK + approvalId };
}

/** The flow store of a table: what the handler and the expirer use. */
export function dynamoFlows(table: TableContext): FlowStore {
  const deleteAt = () => ttlSeconds(table.now() + table.ttlMs + APPROVAL_DELETE_GRACE_MS);
  return {
    async keepReplyTo(approvalId, replyTo) {
      const e = new Expression();
      await write(table, 'keep reply_to', () =>
        table.client().send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: flowKey(table.owner, approvalId),
            UpdateExpression: `SET ${e.equals(F.kind, FLOW_ITEM_KIND)}, ${e.equals(F.replyTo, JSON.stringify(replyTo))}, ${e.equals(TABLE.ttlAttribute, deleteAt())}`,
            ConditionExpression: e.absent(F.completionAt),
            ...e.params(),
          }),
        ),
      );
      // Refused: the flow was completed already (a late redelivery); nothing to keep.
    },

    async beginCompletion(approvalId, replyTo, token, completion) {
      const e = new Expression();
      const sets = [
        e.equals(F.kind, FLOW_ITEM_KIND),
        e.equals(F.completionAt, table.now()),
        e.equals(F.completionBy, token),
        e.equals(F.completion, completion),
        e.equals(TABLE.ttlAttribute, deleteAt()),
      ];
      // Given (a call that ended at once): the record alone. Kept (a resume, an expiry): taken out of the item as it is recorded.
      const condition = replyTo ? e.absent(F.completionAt) : `${e.absent(F.completionAt)} AND ${e.exists(F.replyTo)}`;
      const outcome = await write(table, 'record the completion', () =>
        table.client().send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: flowKey(table.owner, approvalId),
            UpdateExpression: `SET ${sets.join(', ')} REMOVE ${e.name(F.replyTo)}`,
            ConditionExpression: condition,
            ReturnValues: replyTo ? 'NONE' : 'ALL_OLD',
            ...e.params(),
          }),
        ),
      );
      if (!outcome.ok) return undefined;
      if (replyTo) return replyTo;
      const kept = parseReplyTo((outcome.value.Attributes as Item | undefined)?.[F.replyTo]);
      if (!kept) throw storeUnavailable('record the completion', new Error('the kept reply_to does not read back'));
      return kept;
    },

    async undoCompletion(approvalId, replyTo, token, kept) {
      const e = new Expression();
      const restore = kept ? `SET ${e.equals(F.replyTo, JSON.stringify(replyTo))} ` : '';
      await write(table, 'take back the completion', () =>
        table.client().send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: flowKey(table.owner, approvalId),
            UpdateExpression: `${restore}REMOVE ${e.name(F.completionAt)}, ${e.name(F.completionBy)}, ${e.name(F.completion)}`,
            ConditionExpression: e.equals(F.completionBy, token),
            ...e.params(),
          }),
        ),
      );
    },

    async completedClosed(approvalId, token) {
      const e = new Expression();
      await write(table, 'record how the completion ended', () =>
        table.client().send(
          new UpdateCommand({
            TableName: table.tableName,
            Key: flowKey(table.owner, approvalId),
            UpdateExpression: `SET ${e.equals(F.completion, FLOW_COMPLETION.closed)}`,
            ConditionExpression: e.equals(F.completionBy, token),
            ...e.params(),
          }),
        ),
      );
    },
  };
}

function parseReplyTo(value: unknown): ReplyTo | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isReplyTo(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

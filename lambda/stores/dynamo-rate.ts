/**
 * Rate-limit counts on the table: one item per counter and window, among the owner's call items
 * (`call#<owner>#@<window>`; call keys go on with `[` or `~`, so none is ever one of these), counted
 * by one conditional UpdateItem and deleted by the table's TTL once its window has ended.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CALL_ATTRIBUTES as C, TABLE } from '../construct-contract';
import { Expression } from './dynamo-expression';
import { boundedKey, callKeyPrefix, ITEM_KIND, ttlSeconds } from './dynamo-items';
import { type TableContext, write } from './dynamo-table';
import type { RateWindow } from './types';

const RATE_KEY_MARK = '@';

export function rateKey(owner: string, window: RateWindow): Record<string, string> {
  return boundedKey(callKeyPrefix(owner) + RATE_KEY_MARK, JSON.stringify([window.counter, window.start]));
}

export async function countCall(table: TableContext, window: RateWindow): Promise<boolean> {
  const e = new Expression();
  const ttl = ttlSeconds(window.end);
  const outcome = await write(table, 'rate limit', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: rateKey(table.owner, window),
        UpdateExpression: `SET ${e.equals(C.kind, ITEM_KIND.rate)}, ${e.equals(TABLE.expiresAttribute, ttl)}, ${e.equals(TABLE.ttlAttribute, ttl)} ADD ${e.name(C.count)} ${e.value(1)}`,
        ConditionExpression: `${e.absent(C.count)} OR ${e.name(C.count)} < ${e.value(window.limit)}`,
        ...e.params(),
      }),
    ),
  );
  return outcome.ok;
}

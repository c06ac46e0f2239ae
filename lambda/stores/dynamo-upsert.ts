import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Expression } from './dynamo-expression';
import type { Item } from './dynamo-items';
import { write, type WriteOutcome } from './dynamo-send';
import type { TableContext } from './dynamo-table';

/**
 * One UpdateItem that sets each of `fields` only where the item lacks it, and returns the item as
 * it was before (`undefined` when this write created it): creates if absent, else changes nothing
 * and tells what is there, in a single round trip and without a read-then-write race.
 */
export async function upsertIfAbsent(
  table: TableContext,
  operation: string,
  key: Item,
  fields: Record<string, string | number>,
): Promise<WriteOutcome<Item | undefined>> {
  const e = new Expression();
  const sets = Object.entries(fields).map(([attribute, value]) => e.setIfAbsent(attribute, value));
  const outcome = await write(operation, () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ReturnValues: 'ALL_OLD',
        ...e.params(),
      }),
    ),
  );
  return outcome.ok ? { ok: true, value: outcome.value.Attributes as Item | undefined } : outcome;
}

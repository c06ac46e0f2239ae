/**
 * Duplicate-call suppression on the table: one call item per (owner, run_id, call_id).
 *
 * A call item always holds `kind`, `fingerprint`, `state`, `leaseToken`, `leaseUntil`, `heldUntil`,
 * `heldBy` and `expiresAt` (`finish` keeps the lease attributes and sets `state` to `done`), so `begin`'s upsert,
 * which sets each of those only where absent, changes nothing on an existing item and returns it:
 * one round trip tells a new call from a finished, running or mismatched one.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { storeUnavailable } from '../errors';
import { logWarning } from '../log';
import { CALL_ATTRIBUTES as C, TABLE } from '../construct-contract';
import { Expression } from './dynamo-expression';
import {
  CALL_STATE,
  callItemOverheadBytes,
  callKey,
  isExpired,
  ITEM_KIND,
  MAX_ITEM_BYTES,
  ttlSeconds,
  utf8Bytes,
} from './dynamo-items';
import { type TableContext, upsertIfAbsent, write } from './dynamo-table';
import { heldUntil, leaseAnswer, type Lease } from './lease';
import type { BeginInput, BeginOutcome, CallKey } from './types';

/** `heldBy` of a lease whose holder's copies may all be answered as held (not an SQS message). */
const NO_MESSAGE = '-';

export async function beginCall(table: TableContext, key: CallKey, input: BeginInput): Promise<BeginOutcome> {
  const now = table.now();
  const token = randomUUID();
  const Key = callKey(table.owner, key);
  const fields: Record<string, string | number> = {
    [C.kind]: ITEM_KIND.call,
    [C.fingerprint]: input.fingerprint,
    [C.state]: CALL_STATE.running,
    [C.leaseToken]: token,
    [C.leaseUntil]: input.leaseUntil,
    [C.heldUntil]: heldUntil(input, now + table.ttlMs),
    // Always present, so that the upsert never sets it on an existing item (another delivery's).
    [C.heldBy]: input.heldBy ?? NO_MESSAGE,
    [TABLE.expiresAttribute]: ttlSeconds(now + table.ttlMs),
    [TABLE.ttlAttribute]: ttlSeconds(now + table.ttlMs),
  };

  const first = await upsertIfAbsent(table, 'begin', Key, fields);
  if (!first.ok) throw storeUnavailable('begin', new Error(`unexpected refusal (${first.refusal}) of an unconditional upsert`));
  const old = first.value;
  // Absent, or already ours: an SDK retry of this very write, whose first answer was lost.
  if (!old || isOwnLease(old, token)) return { state: 'started', token };

  if (!isExpired(old, now)) {
    if (old[C.fingerprint] !== input.fingerprint) return { state: 'mismatch' };
    if (old[C.state] === CALL_STATE.done) return { state: 'done', reply: parseReply(old[C.reply]) };
    const answer = leaseAnswer(leaseOf(old), input, now);
    if (answer) return { state: answer };
  }

  // A lapsed lease or an expired item: take it over, only if nobody changed it since we saw it.
  const takeover = new Expression();
  const overwrite = Object.entries(fields).map(([attribute, value]) => takeover.equals(attribute, value));
  const second = await write(table, 'begin', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key,
        UpdateExpression: `SET ${overwrite.join(', ')} REMOVE ${takeover.name(C.reply)}`,
        // Or our own running lease: an SDK retry of this write, whose first answer was lost, must not
        // be refused. Only while running: an attempt applied late, after our finish, must not undo it.
        ConditionExpression: `(${[
          takeover.unchanged(C.leaseToken, old[C.leaseToken]),
          takeover.unchanged(C.state, old[C.state]),
          takeover.unchanged(TABLE.expiresAttribute, old[TABLE.expiresAttribute]),
        ].join(' AND ')}) OR (${takeover.equals(C.leaseToken, token)} AND ${takeover.equals(C.state, CALL_STATE.running)})`,
        ...takeover.params(),
      }),
    ),
  );
  return second.ok ? { state: 'started', token } : { state: 'in_progress' };
}

/** The lease an existing call item holds (absent attributes: an item of an earlier version). */
function leaseOf(item: Record<string, unknown>): Lease {
  const leaseUntil = typeof item[C.leaseUntil] === 'number' ? (item[C.leaseUntil] as number) : 0;
  const heldBy = item[C.heldBy];
  return {
    leaseUntil,
    heldUntil: typeof item[C.heldUntil] === 'number' ? (item[C.heldUntil] as number) : leaseUntil,
    ...(typeof heldBy === 'string' && heldBy !== NO_MESSAGE ? { heldBy } : {}),
  };
}

/** The item holds the running lease that `token` took: a write of ours whose answer was lost. */
function isOwnLease(item: Record<string, unknown>, token: string): boolean {
  return item[C.leaseToken] === token && item[C.state] === CALL_STATE.running;
}

export async function finishCall(table: TableContext, key: CallKey, token: string, reply: unknown): Promise<void> {
  const Key = callKey(table.owner, key);
  const full = JSON.stringify(reply) ?? 'null';
  const room = MAX_ITEM_BYTES - callItemOverheadBytes(Key);
  if (utf8Bytes(full) <= room) {
    const outcome = await writeFinish(table, Key, token, full);
    if (outcome.ok || outcome.refusal === 'condition') return;
  }
  await writeFinish(table, Key, token, keptReply(reply, room, key));
}

export async function abandonCall(table: TableContext, key: CallKey, token: string): Promise<void> {
  const condition = new Expression();
  // A refused condition means another delivery holds the call now: nothing of ours to remove.
  await write(table, 'abandon', () =>
    table.client().send(
      new DeleteCommand({
        TableName: table.tableName,
        Key: callKey(table.owner, key),
        ConditionExpression: `${condition.equals(C.leaseToken, token)} AND ${condition.equals(C.state, CALL_STATE.running)}`,
        ...condition.params(),
      }),
    ),
  );
}

/** Marks the call done with its reply; a refused condition (someone else's lease) is ignored. */
function writeFinish(table: TableContext, Key: Record<string, string>, token: string, replyJson: string) {
  const e = new Expression();
  const sets = [
    e.equals(C.state, CALL_STATE.done),
    e.equals(C.reply, replyJson),
    e.equals(TABLE.expiresAttribute, ttlSeconds(table.now() + table.ttlMs)),
    e.equals(TABLE.ttlAttribute, ttlSeconds(table.now() + table.ttlMs)),
  ];
  return write(table, 'finish', () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `${e.equals(C.leaseToken, token)} AND ${e.equals(C.state, CALL_STATE.running)}`,
        ...e.params(),
      }),
    ),
  );
}

/**
 * A reply too large for the item: kept without its `result`, marked `result_omitted` as the reply
 * bus marks an event too large for it (or as `null` if even that is too large).
 */
function keptReply(reply: unknown, room: number, key: CallKey): string {
  let kept = 'null';
  if (typeof reply === 'object' && reply !== null && !Array.isArray(reply)) {
    const { result: _dropped, ...rest } = reply as Record<string, unknown>;
    const json = JSON.stringify({ ...rest, result_omitted: 'the result was too large to keep for redeliveries' });
    if (utf8Bytes(json) <= room) kept = json;
  }
  logWarning('The reply was too large to keep for redeliveries; it is kept without its result.', {
    run_id: key.runId,
    call_id: key.callId,
    limit_bytes: MAX_ITEM_BYTES,
  });
  return kept;
}

function parseReply(stored: unknown): unknown {
  return typeof stored === 'string' ? (JSON.parse(stored) as unknown) : undefined;
}

/**
 * How approvals and calls sit in the table (layout in `construct-contract.ts`): item keys, item-to-record
 * mapping, the expiry rule and item sizes. No SDK calls here.
 */
import { createHash } from 'node:crypto';
import { APPROVAL_ATTRIBUTES as A, DECISION, DECISION_ATTRIBUTES as D, TABLE } from '../construct-contract';
import { approvalFields, fromAttribute, toAttribute } from './approval-record';
import type { ApprovalRecord, ApprovalStatus, CallKey } from './types';

/** A table item as the document client returns it. */
export type Item = Record<string, unknown>;

/** Values of the `kind` attribute. */
export const ITEM_KIND = { approval: 'approval', call: 'call', rate: 'rate' } as const;

/** Values of a call item's `state` attribute. */
export const CALL_STATE = { running: 'running', done: 'done' } as const;

/** `approval#<owner>#<approval_id>`: the approval id is owner-free, the key is the owner's. */
export function approvalKey(owner: string, approvalId: string): Record<string, string> {
  return { [TABLE.partitionKey]: approvalKeyPrefix(owner) + approvalId };
}

/** Every approval key of `owner` starts with this. */
export function approvalKeyPrefix(owner: string): string {
  return TABLE.approvalKeyPrefix + owner + TABLE.ownerSeparator;
}

/** Every call key of `owner` starts with this. */
export function callKeyPrefix(owner: string): string {
  return TABLE.callKeyPrefix + owner + TABLE.ownerSeparator;
}

/** DynamoDB's limit on a partition key value (and on a GSI's), in UTF-8 bytes. */
export const MAX_PARTITION_KEY_BYTES = 2048;

/** Marks a key made of a hash: a plain one goes on with `[`, so the two never meet. */
const HASHED_KEY_MARK = '~';

/**
 * `prefix` + `json` when that fits DynamoDB's key limit, else `prefix` + `~` + base64url(sha256(json)),
 * which no plain key can equal and no two keys share (short of a SHA-256 collision).
 */
export function boundedKey(prefix: string, json: string): Record<string, string> {
  const plain = prefix + json;
  const value = utf8Bytes(plain) <= MAX_PARTITION_KEY_BYTES ? plain : prefix + HASHED_KEY_MARK + createHash('sha256').update(json).digest('base64url');
  return { [TABLE.partitionKey]: value };
}

/**
 * `call#<owner>#["<runId>","<callId>"]`: unambiguous whatever characters the ids hold. Ids of up to
 * 256 code points may make that longer than DynamoDB's 2,048-byte key limit; such a key is
 * `call#<owner>#~` + base64url(sha256(the same JSON)) instead, which no plain key can equal and no
 * two calls share (short of a SHA-256 collision).
 */
export function callKey(owner: string, key: CallKey): Record<string, string> {
  return boundedKey(callKeyPrefix(owner), JSON.stringify([key.runId, key.callId]));
}

/** An approval item stays this long past its expiry before DynamoDB's TTL may delete it. */
export const APPROVAL_DELETE_GRACE_MS = 24 * 60 * 60 * 1000;

/** The value (epoch seconds, whole) of `expiresAt` or the TTL attribute for a time of `epochMs`. */
export function ttlSeconds(epochMs: number): number {
  return Math.ceil(epochMs / 1000);
}

/** `now` in the TTL attribute's unit, for conditions: an item is live while `expiresAt > this`. */
export function nowInSeconds(now: number): number {
  return now / 1000;
}

/** DynamoDB deletes expired items lazily, so an item past its expiry counts as absent. */
export function isExpired(item: Item, now: number): boolean {
  const expiresAt = item[TABLE.expiresAttribute];
  return typeof expiresAt === 'number' && expiresAt * 1000 <= now;
}

/**
 * The record of an approval item, field by field as `APPROVAL_FIELDS` defines them. Status comes
 * from `decision`: absent means pending, or expired once `expiresAt` has passed (at `now`).
 */
export function toApprovalRecord(item: Item, now: number): ApprovalRecord {
  const fields: Record<string, unknown> = {};
  for (const [key, spec] of approvalFields()) {
    const value = item[key];
    if (value !== undefined) fields[key] = fromAttribute(spec.form, value);
  }
  const status = statusOf(item[D.decision], item[A.expiredAt] !== undefined || isExpired(item, now));
  return { ...fields, status, hasResult: item[A.result] !== undefined } as unknown as ApprovalRecord;
}

/**
 * The attributes a new approval item starts with: its record's fields set at creation, and the
 * caller's id alone beside `requestedBy`, which a claim limited to one caller tests.
 */
export function createdAttributes(record: ApprovalRecord): Record<string, string | number> {
  const attributes: Record<string, string | number> = {};
  for (const [key, spec] of approvalFields()) {
    if (spec.atCreate && record[key] !== undefined) attributes[key] = toAttribute(spec.form, record[key]);
  }
  if (record.requestedBy !== undefined) attributes[A.requestedById] = record.requestedBy.id;
  return attributes;
}

/** Any value other than the two known decisions fails closed, as a denial. */
function statusOf(decision: unknown, expired: boolean): ApprovalStatus {
  if (decision === undefined) return expired ? 'expired' : 'pending';
  return decision === DECISION.approved ? 'approved' : 'denied';
}

/** DynamoDB's item size limit: names and values together, in UTF-8 bytes. */
export const MAX_ITEM_BYTES = 400 * 1024;

/** An upper bound on the stored size of any number attribute value. */
const NUMBER_BYTES = 21;

/** Together, an approver's `decidedBy` and `reason` may take this many UTF-8 bytes. */
export const MAX_DECISION_TEXT_BYTES = 8 * 1024;

/** Room an approval item keeps for the attributes written after create (decision, claim, completion). */
export const LATER_ATTRIBUTES_RESERVE_BYTES = MAX_DECISION_TEXT_BYTES + 512;

/** Room a call item's reply may not take: key, fingerprint, lease and state attributes. */
export function callItemOverheadBytes(key: Record<string, string>): number {
  return itemBytes(key) + 1024;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The size DynamoDB counts for an item of string and number attributes (numbers over-estimated). */
export function itemBytes(item: Record<string, string | number>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) {
    total += utf8Bytes(name) + (typeof value === 'number' ? NUMBER_BYTES : utf8Bytes(value));
  }
  return total;
}

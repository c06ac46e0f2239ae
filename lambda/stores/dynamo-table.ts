/**
 * The table's plumbing, in one place: the container's document client (made on first use), what
 * every operation needs (`TableContext`), how a request is sent (refusals kept apart from failures,
 * which become `StoreUnavailable`), and the one-round-trip upsert.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resolveRegion } from '../config';
import { storeUnavailable } from '../errors';
import { Expression } from './dynamo-expression';
import type { Item } from './dynamo-items';

/**
 * Timeouts of the default client, in ms. A single-item request takes milliseconds; one that hangs
 * fails after these (as a retryable store error) instead of holding the invocation to its end. The
 * SDK only warns about a request over `requestTimeout` unless `throwOnRequestTimeout` is set.
 */
export const DEFAULT_CLIENT_TIMEOUTS = {
  connectionTimeout: 3000,
  requestTimeout: 5000,
  throwOnRequestTimeout: true,
} as const;

let shared: DynamoDBDocumentClient | undefined;

/**
 * The container's DynamoDB document client, created on first use (so that tests and local runs can
 * set `AWS_ENDPOINT_URL_DYNAMODB` or the region first) and reused by every warm invocation.
 */
export function sharedDocumentClient(): DynamoDBDocumentClient {
  shared ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: resolveRegion(), requestHandler: { ...DEFAULT_CLIENT_TIMEOUTS } }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return shared;
}

/** Forgets the shared client, so the next use creates one from the environment as it is then. For tests. */
export function resetSharedDocumentClient(): void {
  shared?.destroy();
  shared = undefined;
}

/** What every operation on the table needs. */
export interface TableContext {
  readonly tableName: string;
  /** The document client (the injected one, or the container's shared one, made on first use). */
  client(): DynamoDBDocumentClient;
  /** How long approvals and kept replies live, in ms. */
  readonly ttlMs: number;
  /** The clock, epoch ms. */
  now(): number;
  /** Who owns the approvals this store creates and claims. */
  readonly owner: string;
}

export function tableContext(props: {
  tableName: string;
  client?: DynamoDBDocumentClient;
  ttlMs: number;
  now: () => number;
  owner: string;
}): TableContext {
  const injected = props.client;
  return {
    tableName: props.tableName,
    client: () => injected ?? sharedDocumentClient(),
    ttlMs: props.ttlMs,
    now: props.now,
    owner: props.owner,
  };
}

/** Why a conditional write did not happen (the SDK's errors that the store expects and handles). */
export type WriteRefusal = 'condition' | 'too_large';

export type WriteOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: WriteRefusal };

/**
 * Runs one conditional write. A failed condition and an item grown past DynamoDB's size limit come
 * back as refusals for the caller to handle; every other failure (throttling, 5xx, network,
 * timeouts, a missing table) becomes a retryable `AdapterError`, so no raw SDK error escapes.
 */
export async function write<T>(operation: string, run: () => Promise<T>): Promise<WriteOutcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return { ok: false, refusal };
    throw storeUnavailable(operation, error);
  }
}

/** Runs one read (or an unconditional write); any failure becomes a retryable `AdapterError`. */
export async function read<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw storeUnavailable(operation, error);
  }
}

function refusalOf(error: unknown): WriteRefusal | undefined {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'ConditionalCheckFailedException') return 'condition';
  // DynamoDB: "Item size to update has exceeded the maximum allowed size" (UpdateItem).
  const message = (error as { message?: unknown } | null)?.message;
  if (name === 'ValidationException' && typeof message === 'string' && /maximum allowed size/i.test(message)) {
    return 'too_large';
  }
  return undefined;
}

/**
 * One UpdateItem that sets each of `fields` only where the item lacks it, and returns the item as
 * it was before (`undefined` when this write created it): creates if absent, else changes nothing
 * and tells what is there, in a single round trip and without a read-then-write race. `condition`,
 * when given, must also hold for an existing item (a refusal comes back as `condition`).
 */
export async function upsertIfAbsent(
  table: TableContext,
  operation: string,
  key: Item,
  fields: Record<string, string | number>,
  condition?: (e: Expression) => string,
): Promise<WriteOutcome<Item | undefined>> {
  const e = new Expression();
  const sets = Object.entries(fields).map(([attribute, value]) => e.setIfAbsent(attribute, value));
  const conditionExpression = condition?.(e);
  const outcome = await write(operation, () =>
    table.client().send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ...(conditionExpression === undefined ? {} : { ConditionExpression: conditionExpression }),
        ReturnValues: 'ALL_OLD',
        ...e.params(),
      }),
    ),
  );
  return outcome.ok ? { ok: true, value: outcome.value.Attributes as Item | undefined } : outcome;
}

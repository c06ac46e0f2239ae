/**
 * The table's plumbing, in one place: the container's document client (made on first use), what
 * every operation needs (`TableContext`), how a request is sent (refusals kept apart from failures,
 * which become `StoreMisconfigured` when no retry can fix them, else `StoreUnavailable`), and the
 * one-round-trip upsert.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resolveRegion } from '../config';
import { StoreMisconfigured, storeUnavailable, type StoreUnavailable } from '../errors';
import { ENV, INDEXES, TABLE } from '../construct-contract';
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
 * back as refusals for the caller to handle; every other failure becomes a `StoreMisconfigured` or
 * a `StoreUnavailable` (`storeFailure`), so no raw SDK error escapes.
 */
export async function write<T>(table: TableContext, operation: string, run: () => Promise<T>): Promise<WriteOutcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return { ok: false, refusal };
    throw storeFailure(table, operation, error);
  }
}

/** Runs one read (or an unconditional write); a failure becomes a `StoreMisconfigured` or a `StoreUnavailable`. */
export async function read<T>(table: TableContext, operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw storeFailure(table, operation, error);
  }
}

/**
 * What a failed request is. One that no retry can fix, since the table is not what the store needs,
 * is a `StoreMisconfigured` naming the table and what to fix: a missing table, a missing index or
 * another key schema (DynamoDB's `ValidationException`), access denied. Everything else (throttling,
 * 5xx, network, timeouts, an index still backfilling after it was added) is a retryable
 * `StoreUnavailable`. A missing table counts as configuration: CloudFormation creates a table before
 * the functions that name it, and the construct retains it on stack deletion (docs/reference.md, "The approvals
 * table").
 */
function storeFailure(table: TableContext, operation: string, error: unknown): StoreMisconfigured | StoreUnavailable {
  const fix = misconfiguration(error);
  if (fix === undefined) return storeUnavailable(operation, error);
  const { name, message } = error as { name: string; message?: unknown };
  return new StoreMisconfigured(
    `The state store's table ${table.tableName} cannot serve ${operation} (${name}: ${String(message ?? '')}): ${fix} ` +
      'Retrying cannot help.',
    { cause: error },
  );
}

/** What to fix when `error` says the table is not set up as the store needs; undefined for any other failure. */
function misconfiguration(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | null)?.name;
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  switch (name) {
    case 'ResourceNotFoundException':
      return (
        'it does not exist in this account and region. Deploy the stack that makes it, or give the store the name of ' +
        `the table your ToolHandler made (the functions read it from ${ENV.approvalsTable}).`
      );
    case 'AccessDeniedException':
      return (
        "this function's role may not do that. The construct grants its functions what they use, so a policy outside it " +
        "refuses: a permissions boundary, a service control policy, or the policy of the table's key."
      );
    case 'ValidationException':
      // Reads of an index being added fail only until DynamoDB has filled it; sizes are the caller's refusal.
      if (/cannot read from backfilling|maximum allowed size/i.test(message)) return undefined;
      return (
        `its key schema or indexes are not the store's: a String partition key "${TABLE.partitionKey}", no sort key, and ` +
        `the global secondary indexes ${INDEXES.map((i) => `${i.name} (${i.partitionKey.name}, ${i.sortKey.name})`).join(' and ')}, ` +
        'all attributes projected (docs/reference.md, "The approvals table").'
      );
    default:
      return undefined;
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
  const outcome = await write(table, operation, () =>
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

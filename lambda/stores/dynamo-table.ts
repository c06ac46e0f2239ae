import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sharedDocumentClient } from './dynamo-client';

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

/**
 * The embedded DynamoDB: dynalite on 127.0.0.1 (a free port, in memory), the approvals table created
 * as the template declares it, and the two raw calls `local` itself makes (DynamoDB's JSON protocol,
 * so that the CLI's bundle carries no DynamoDB client). What dynalite lacks is left out: TTL,
 * point-in-time recovery, encryption settings, streams (the pipe is stood in for, see `pipe.ts`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadDynalite } from './modules';

export interface LocalDynamo {
  readonly endpoint: string;
  /** One DynamoDB API call (`DynamoDB_20120810.<operation>`). */
  call(operation: string, body: unknown): Promise<any>;
  /** CreateTable, then waits until the table is ACTIVE (dynalite flips it on a timer, as DynamoDB does). */
  createTable(input: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

const TABLE_READY_ATTEMPTS = 500;

export async function startDynamo(): Promise<LocalDynamo> {
  const dynalite = loadDynalite();
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (operation: string, body: unknown): Promise<any> => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
        // dynalite wants a signature's shape, not a valid one.
        authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        'x-amz-date': '20260101T000000Z',
      },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as any;
    if (!response.ok) throw new Error(`DynamoDB ${operation}: ${json.__type ?? response.status}: ${json.message ?? json.Message ?? ''}`);
    return json;
  };
  return {
    endpoint,
    call,
    createTable: async (input) => {
      await call('CreateTable', input);
      for (let attempt = 0; attempt < TABLE_READY_ATTEMPTS; attempt++) {
        const { Table } = await call('DescribeTable', { TableName: input.TableName });
        if (Table?.TableStatus === 'ACTIVE') return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`DynamoDB table ${String(input.TableName)} was not ACTIVE after ${TABLE_READY_ATTEMPTS} checks`);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** CreateTable's input from an `AWS::DynamoDB::Table`'s properties (what dynalite understands). */
export function createTableInput(tableName: string, properties: Record<string, any>): Record<string, unknown> {
  const provisioned = properties.BillingMode === 'PROVISIONED';
  const throughput = { ReadCapacityUnits: 5, WriteCapacityUnits: 5 };
  const indexes = (properties.GlobalSecondaryIndexes ?? []).map((index: Record<string, any>) => ({
    IndexName: index.IndexName,
    KeySchema: index.KeySchema,
    Projection: index.Projection ?? { ProjectionType: 'ALL' },
    ...(provisioned ? { ProvisionedThroughput: index.ProvisionedThroughput ?? throughput } : {}),
  }));
  const local = (properties.LocalSecondaryIndexes ?? []).map((index: Record<string, any>) => ({
    IndexName: index.IndexName,
    KeySchema: index.KeySchema,
    Projection: index.Projection ?? { ProjectionType: 'ALL' },
  }));
  return {
    TableName: tableName,
    KeySchema: properties.KeySchema,
    AttributeDefinitions: properties.AttributeDefinitions,
    ...(provisioned ? { ProvisionedThroughput: properties.ProvisionedThroughput ?? throughput } : { BillingMode: 'PAY_PER_REQUEST' }),
    ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes } : {}),
    ...(local.length > 0 ? { LocalSecondaryIndexes: local } : {}),
  };
}

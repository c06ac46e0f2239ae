import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type CreateTableCommandInput, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INDEXES, TABLE } from '../../lambda/construct-contract';

/** The shared dynalite that jest's global setup started. */
export function dynaliteEndpoint(): string {
  const endpoint = process.env.DYNALITE_ENDPOINT;
  if (!endpoint) {
    throw new Error('DYNALITE_ENDPOINT is not set: run the tests through jest, whose globalSetup starts dynalite.');
  }
  return endpoint;
}

export interface TestClientOptions {
  /** @default - the shared dynalite */
  readonly endpoint?: string;
  /** SDK attempts per request; 1 makes every send exactly one HTTP request. @default 1 */
  readonly maxAttempts?: number;
  /** Socket timeouts in ms, for tests against a stopped server. @default - the SDK's */
  readonly timeoutMs?: number;
}

/** A document client for dynalite: region us-east-1, dummy credentials. */
export function testDocumentClient(options: TestClientOptions = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    endpoint: options.endpoint ?? dynaliteEndpoint(),
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: options.maxAttempts ?? 1,
    ...(options.timeoutMs === undefined
      ? {}
      : {
          requestHandler: {
            connectionTimeout: options.timeoutMs,
            requestTimeout: options.timeoutMs,
            throwOnRequestTimeout: true, // else the SDK only warns
          },
        }),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** The construct's table layout (string partition key `pk`, the per-owner indexes), on demand. */
export function approvalsTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [
      { AttributeName: TABLE.partitionKey, AttributeType: 'S' },
      ...INDEXES.flatMap((index) => [
        { AttributeName: index.partitionKey.name, AttributeType: index.partitionKey.type },
        { AttributeName: index.sortKey.name, AttributeType: index.sortKey.type },
      ]),
    ],
    KeySchema: [{ AttributeName: TABLE.partitionKey, KeyType: 'HASH' }],
    GlobalSecondaryIndexes: INDEXES.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    BillingMode: 'PAY_PER_REQUEST',
  };
}

/** A table with only a string partition key `key` (no index, no sort key), on demand. */
export function keyOnlyTableInput(tableName: string, key: string = TABLE.partitionKey): CreateTableCommandInput {
  return {
    TableName: tableName,
    AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
    KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

/**
 * Creates a uniquely named table with the construct's key schema (string partition key `pk`, the
 * per-owner indexes, on-demand) and returns its name with a client pointed at it.
 */
export async function createTestTable(
  options: TestClientOptions = {},
): Promise<{ tableName: string; client: DynamoDBDocumentClient }> {
  const client = testDocumentClient(options);
  const tableName = `approvals-${randomUUID()}`;
  await createActiveTable(client, approvalsTableInput(tableName));
  return { tableName, client };
}

/**
 * Creates a table and waits until it is ACTIVE. dynalite, like DynamoDB, answers CreateTable while
 * the table is still CREATING and refuses items until it is ACTIVE (even with `createTableMs: 0` the
 * switch is a timer), so a write sent straight after CreateTable may meet ResourceNotFoundException.
 */
export async function createActiveTable(client: DynamoDBClient | DynamoDBDocumentClient, input: CreateTableCommandInput): Promise<void> {
  const raw = client as DynamoDBClient; // a document client passes table commands through unchanged
  await raw.send(new CreateTableCommand(input));
  await waitUntilTableExists({ client: raw, maxWaitTime: 30, minDelay: 0.01, maxDelay: 0.2 }, { TableName: input.TableName! });
}

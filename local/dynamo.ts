/**
 * The embedded DynamoDB: dynalite (in memory) on a Unix socket in a directory only this user can
 * enter, reached from outside only through its checked front (local/dynamo-front.ts: the run's own
 * function keys, a loopback `Host`, no CORS), whose 127.0.0.1 URL is the functions'
 * `AWS_ENDPOINT_URL_DYNAMODB`. No TCP port serves dynalite itself. The approvals table is created as
 * the template declares it, and `local`'s own calls (DynamoDB's JSON protocol, so that the CLI's
 * bundle carries no DynamoDB client) go straight to the socket. What dynalite lacks is left out: TTL,
 * point-in-time recovery, encryption settings, streams (the pipe is stood in for, see `pipe.ts`).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { Agent, request, type Server } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { CliError } from '../console/errors';
import { startDynamoFront, type DynamoFront } from './dynamo-front';
import type { SigningKeys } from './endpoint-access';
import { AWS_JSON_1_0 } from './http-request';
import { loadDynalite } from './modules';

export interface LocalDynamo {
  /** The checked endpoint (`http://127.0.0.1:<port>`) the functions' DynamoDB clients are pointed at. */
  readonly endpoint: string;
  /** One DynamoDB API call (`DynamoDB_20120810.<operation>`), made by `local` itself. */
  call(operation: string, body: unknown): Promise<any>;
  /** CreateTable, then waits until the table is ACTIVE (dynalite flips it on a timer, as DynamoDB does). */
  createTable(input: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

const TABLE_READY_ATTEMPTS = 500;
/** Unix sockets' paths are short (104 bytes on macOS, 108 on Linux). */
const MAX_SOCKET_PATH = 100;

/** Starts dynalite and its front, which answers requests signed by `access`'s keys only. */
export async function startDynamo(access: SigningKeys): Promise<LocalDynamo> {
  const dynalite = loadDynalite();
  const { socketPath, remove } = privateSocket();
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let front: DynamoFront | undefined;
  const agent = new Agent({ keepAlive: true });
  const stop = async () => {
    await front?.close();
    agent.destroy();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    remove();
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    front = await startDynamoFront(socketPath, access);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const call = async (operation: string, body: unknown): Promise<any> => {
    const { status, text } = await post(socketPath, agent, operation, JSON.stringify(body));
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`DynamoDB ${operation}: HTTP ${status}, not JSON`);
    }
    if (status !== 200) throw new Error(`DynamoDB ${operation}: ${json.__type ?? status}: ${json.message ?? json.Message ?? ''}`);
    return json;
  };
  return {
    endpoint: front.url,
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
    stop,
  };
}

/**
 * Where dynalite listens: a socket in a new directory that `mkdtemp` makes for this user alone
 * (mode 0700, a random name), removed at the end. On Windows, a named pipe with a random name.
 */
function privateSocket(): { socketPath: string; remove(): void } {
  if (process.platform === 'win32') {
    return { socketPath: `\\\\?\\pipe\\cdk-tool-handler-dynamodb-${randomBytes(16).toString('hex')}`, remove: () => undefined };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cth-dynamodb-'));
  fs.chmodSync(dir, 0o700);
  const socketPath = path.join(dir, 'dynalite.sock');
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    remove();
    throw new CliError(
      `The temporary directory's path is too long for the embedded DynamoDB's socket (${socketPath}): set TMPDIR to a shorter directory.`,
    );
  }
  return { socketPath, remove };
}

/** One DynamoDB JSON 1.0 request over the private socket (dynalite wants a signature's shape, not a valid one). */
function post(socketPath: string, agent: Agent, operation: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        socketPath,
        agent,
        method: 'POST',
        path: '/',
        headers: {
          'content-type': AWS_JSON_1_0,
          'content-length': Buffer.byteLength(body),
          'x-amz-target': `DynamoDB_20120810.${operation}`,
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
          'x-amz-date': '20260101T000000Z',
        },
      },
      (answered) => {
        const chunks: Buffer[] = [];
        answered.on('data', (chunk: Buffer) => chunks.push(chunk));
        answered.once('end', () => resolve({ status: answered.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        answered.once('error', reject);
      },
    );
    sent.once('error', reject);
    sent.end(body);
  });
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

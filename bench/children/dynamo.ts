/**
 * DynamoDB round trips and wall time against dynalite, per call, per repeated delivery and per
 * resume, for this library's handler and for Powertools idempotency on the same dynalite. Requests
 * are counted by SDK middleware on each client (the finalizeRequest step: one per HTTP attempt, so
 * retries would count too). Operations alternate between the two sides.
 * argv: JSON { endpoint, iterations, ours, powertools }
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { DynamoApprovalStore } from '../../lambda';
import { createResume } from '../handlers/powertools-resume';
import { callBody, lambdaContext, sqsEvent, sqsRecord } from '../lib/events';
import { runMain } from '../lib/report';
import { createActiveTable, keyOnlyTableInput } from '../../test/support/dynamo';

export interface DynamoConfig {
  readonly endpoint: string;
  readonly iterations: number;
  readonly ours: string;
  readonly powertools: string;
}

export interface OpSamples {
  readonly roundTrips: number[];
  readonly ms: number[];
}
/**
 * `${side}.${operation}` → samples; operations: call, repeat, resume (and request: an approval request;
 * readonly: a read-only tool's call; limited: a call of a tool with a `rateLimit`).
 */
export type DynamoResult = Record<string, OpSamples>;

type BatchHandler = (event: SQSEvent, context: unknown) => Promise<{ batchItemFailures: unknown[] }>;
type DirectHandler = (event: unknown, context: unknown) => Promise<{ status: string; approval_id?: string }>;

function countedClient(endpoint: string): { client: DynamoDBClient; requests: () => number } {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  let requests = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      requests++;
      return next(args);
    },
    { step: 'finalizeRequest', name: 'benchCountRequests', priority: 'low' },
  );
  return { client, requests: () => requests };
}

async function createTable(client: DynamoDBClient, name: string, key: string): Promise<void> {
  await createActiveTable(client, keyOnlyTableInput(name, key));
}

runMain(async (): Promise<DynamoResult> => {
  const config = JSON.parse(process.argv[2]) as DynamoConfig;
  const load = createRequire(__filename);
  const setup = countedClient(config.endpoint).client;
  const approvalsTable = `bench-approvals-${randomUUID()}`;
  const idempotencyTable = `bench-idempotency-${randomUUID()}`;
  await createTable(setup, approvalsTable, 'pk');
  await createTable(setup, idempotencyTable, 'id');

  const oursCounted = countedClient(config.endpoint);
  const oursDocument = DynamoDBDocumentClient.from(oursCounted.client, { marshallOptions: { removeUndefinedValues: true } });
  const oursModule = load(config.ours) as { createHandler(options: unknown): BatchHandler & DirectHandler };
  const ours = oursModule.createHandler({ client: oursDocument, tableName: approvalsTable });
  const approver = new DynamoApprovalStore({
    tableName: approvalsTable,
    client: DynamoDBDocumentClient.from(setup),
  });

  const ptCounted = countedClient(config.endpoint);
  const ptModule = load(config.powertools) as { createHandler(options: unknown): BatchHandler };
  const powertools = ptModule.createHandler({ client: ptCounted.client, tableName: idempotencyTable });
  const ptResume = createResume({ client: ptCounted.client, tableName: idempotencyTable });

  const result: DynamoResult = {};
  const measure = async (key: string, requests: () => number, op: () => Promise<void>) => {
    const before = requests();
    const started = performance.now();
    await op();
    const ms = performance.now() - started;
    const entry = (result[key] ??= { roundTrips: [], ms: [] });
    entry.roundTrips.push(requests() - before);
    entry.ms.push(ms);
  };
  const batchOk = (handler: BatchHandler, event: SQSEvent) => async () => {
    const response = await handler(event, lambdaContext());
    if (response.batchItemFailures.length !== 0) throw new Error('a dynamo bench delivery failed');
  };

  // One warm-up call each: the first request of a client pays for its set-up (credentials, endpoint).
  await batchOk(ours, sqsEvent([sqsRecord('warm-ours', callBody('add', { a: 0, b: 0 }, 'warm', 'warm'))]))();
  await batchOk(powertools, sqsEvent([sqsRecord('warm-pt', callBody('add', { a: 0, b: 0 }, 'warm', 'warm'))]))();

  for (let i = 0; i < config.iterations; i++) {
    const call = sqsEvent([sqsRecord(`msg-call-${i}`, callBody('add', { a: i, b: 1 }, `run-${i}`, `call-${i}`))]);
    await measure('ours.call', oursCounted.requests, batchOk(ours, call));
    await measure('powertools.call', ptCounted.requests, batchOk(powertools, call));
    await measure('ours.repeat', oursCounted.requests, batchOk(ours, call));
    await measure('powertools.repeat', ptCounted.requests, batchOk(powertools, call));

    // Ours: a call of a read-only tool (never duplicate-suppressed: no store request at all).
    const peek = sqsEvent([sqsRecord(`msg-peek-${i}`, callBody('peek', {}, `run-peek-${i}`, `call-peek-${i}`))]);
    await measure('ours.readonly', oursCounted.requests, batchOk(ours, peek));

    // Ours: a call of a rate-limited tool (its count, then the call as any other).
    const limited = sqsEvent([sqsRecord(`msg-limited-${i}`, callBody('limited', {}, `run-limited-${i}`, `call-limited-${i}`))]);
    await measure('ours.limited', oursCounted.requests, batchOk(ours, limited));

    // Ours: a call of a tool that needs approval, the approver's decision, then the resume.
    const request = { tool: 'refund', args: { orderId: `order-${i}` }, run_id: `run-apr-${i}`, call_id: `call-apr-${i}` };
    let approvalId = '';
    await measure('ours.request', oursCounted.requests, async () => {
      const reply = await ours(request, lambdaContext(60_000, `req-apr-${i}`));
      if (reply.status !== 'pending_approval' || !reply.approval_id) throw new Error(`no pending approval: ${JSON.stringify(reply)}`);
      approvalId = reply.approval_id;
    });
    await approver.decide(approvalId, { approved: true, by: 'bench' });
    const resume = sqsEvent([sqsRecord(`msg-resume-${i}`, JSON.stringify({ approval_id: approvalId }))]);
    await measure('ours.resume', oursCounted.requests, batchOk(ours, resume));

    // Powertools: the decision an approver wrote, then the resume.
    const ptApproval = `apr-pt-${i}`;
    await setup.send(
      new PutItemCommand({
        TableName: idempotencyTable,
        Item: {
          id: { S: `approval#${ptApproval}` },
          decision: { S: 'approved' },
          tool: { S: 'refund' },
          args: { S: JSON.stringify({ orderId: `order-${i}` }) },
        },
      }),
    );
    await measure('powertools.resume', ptCounted.requests, async () => {
      await ptResume(ptApproval, lambdaContext());
    });
  }
  return result;
});

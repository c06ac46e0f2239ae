import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { approvalsEngine } from '../../lambda/approvals/engine';
import { EngineApprovals } from '../../lambda/approvals/engine-client';
import { parseEnvelope } from '../../lambda/envelope';
import { ToolExecutor } from '../../lambda/executor';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { refundExecutor } from '../support/counting-tools';
import { createTestTable } from '../support/dynamo';
import { captureLogsOfEachTest } from '../support/events';

/**
 * The handler's side of the engine link: the real `@aws-sdk/client-lambda` against a local Invoke
 * endpoint that runs the engine (its source) on dynalite, with the faults a network adds.
 */

captureLogsOfEachTest();

type Fault = 'lose-answer' | 'function-error' | 'throttle';

let server: Server;
let faults: Array<{ op: string; fault: Fault }>;
let ops: string[];
let store: DynamoApprovalStore;
let client: LambdaClient;
let runs: number;

beforeEach(async () => {
  const table = await createTestTable();
  store = new DynamoApprovalStore({ tableName: table.tableName, client: table.client });
  const engine = approvalsEngine({ store, allowed: new Set(['refund']), claimMaxMs: 60_000 });
  faults = [];
  ops = [];
  runs = 0;
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      ops.push(body.op);
      const index = faults.findIndex((f) => f.op === body.op);
      const fault = index >= 0 ? faults.splice(index, 1)[0].fault : undefined;
      if (fault === 'throttle') {
        response.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
        response.end(JSON.stringify({ Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded', Type: 'User', message: 'Rate exceeded' }));
        return;
      }
      if (fault === 'function-error') {
        response.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
        response.end(JSON.stringify({ errorType: 'Error', errorMessage: 'boom' }));
        return;
      }
      const answer = await engine(body);
      if (fault === 'lose-answer') {
        request.socket.destroy(); // the engine did the work; its answer never arrives
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new LambdaClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 3,
  });
});

afterEach(async () => {
  client.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function executor(): ToolExecutor {
  return refundExecutor(new EngineApprovals({ functionName: 'engine', client }), () => runs++);
}

const options = () => ({ source: 'test', deadline: Date.now() + 30_000, invocationEnd: Date.now() + 30_000 });

async function approvedApproval(exec: ToolExecutor): Promise<string> {
  const reply = (await exec.execute(parseEnvelope({ tool: 'refund', args: { orderId: 'o1' }, run_id: 'r', call_id: 'c' }), options())) as {
    approval_id: string;
  };
  await store.decide(reply.approval_id, { approved: true, by: 'alice' });
  return reply.approval_id;
}

test('a claim whose answer was lost: the SDK retries with the same token, which the engine recognises; the tool runs once', async () => {
  const exec = executor();
  const approvalId = await approvedApproval(exec);
  faults.push({ op: 'claim', fault: 'lose-answer' });
  const reply = await exec.execute(parseEnvelope({ approval_id: approvalId }), options());
  expect(reply).toMatchObject({ status: 'ok', result: { refunded: 'o1' } });
  expect(ops.filter((op) => op === 'claim')).toHaveLength(2);
  expect(runs).toBe(1);
  expect(await exec.execute(parseEnvelope({ approval_id: approvalId }), options())).toMatchObject({ status: 'already_done' });
  expect(runs).toBe(1);
});

test('a completion whose answer was lost is harmless: completed once, never run again', async () => {
  const exec = executor();
  const approvalId = await approvedApproval(exec);
  faults.push({ op: 'complete', fault: 'lose-answer' });
  expect(await exec.execute(parseEnvelope({ approval_id: approvalId }), options())).toMatchObject({ status: 'ok' });
  expect(await store.get(approvalId)).toMatchObject({ completedAt: expect.any(Number), result: { refunded: 'o1' } });
  expect(await exec.execute(parseEnvelope({ approval_id: approvalId }), options())).toMatchObject({
    status: 'already_done',
    result: { refunded: 'o1' },
  });
  expect(runs).toBe(1);
});

test.each([
  ['throttle', /TooManyRequestsException|Rate exceeded/],
  ['function-error', /the function failed \(Unhandled\)/],
] as const)('an engine that answers %s is a retryable StoreUnavailable, and nothing ran', async (fault, message) => {
  const exec = executor();
  const approvalId = await approvedApproval(exec);
  for (let i = 0; i < 3; i++) faults.push({ op: 'claim', fault });
  await expect(exec.execute(parseEnvelope({ approval_id: approvalId }), options())).rejects.toMatchObject({
    name: 'StoreUnavailable',
    retryable: true,
    message: expect.stringMatching(message),
  });
  expect(runs).toBe(0);
});

test("the engine's errors come back as the same errors", async () => {
  const exec = executor();
  await expect(exec.execute(parseEnvelope({ approval_id: 'apr_missing' }), options())).rejects.toMatchObject({ name: 'ApprovalNotFound' });
  const reply = (await exec.execute(parseEnvelope({ tool: 'refund', args: { orderId: 'o2' }, run_id: 'r2', call_id: 'c2' }), options())) as {
    approval_id: string;
  };
  await expect(exec.execute(parseEnvelope({ approval_id: reply.approval_id }), options())).rejects.toMatchObject({
    name: 'ToolUsageError',
    message: expect.stringMatching(/not decided yet/),
  });
  await store.decide(reply.approval_id, { approved: false, by: 'bob', reason: 'no' });
  await expect(exec.execute(parseEnvelope({ approval_id: reply.approval_id }), options())).rejects.toMatchObject({
    name: 'ApprovalDenied',
    message: `Approval ${reply.approval_id} for tool refund was denied: no`,
  });
});

/**
 * A Lambda durable function that calls a tool with `callTool` (`cdk-tool-handler/durable`), run by
 * the durable SDK's own `LocalDurableTestRunner`: its submitter sends the call through the real SQS
 * client, the handler runs it and completes the callback through the real Lambda client, both to the
 * local endpoints (local/endpoints.ts, signed with the tests' keys), which deliver the message to the
 * handler and the completion to the flow engines (local/flow-engines.ts, which forward it to the
 * runner). Approve, deny, expire, a
 * failure retrying could not fix, and a submitter that runs twice (one call, one completion).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { withDurableExecution, type DurableContext } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner } from '@aws/durable-execution-sdk-js-testing';
import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { approvalsExpirer } from '../../lambda/approvals/expirer';
import { callTool, ToolCallFailed } from '../../lambda/durable';
import { resetFlowEngineClients } from '../../lambda/flows/engines';
import { flowTarget } from '../../lambda/results/flow-target';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor } from '../../lambda';
import { startEndpoints, type LocalEndpoints, type SentMessage } from '../../local/endpoints';
import { flowEngines, type EngineCompletion } from '../../local/flow-engines';
import { captureLogs, sqsEvent, sqsRecord } from '../support/events';
import { LOCAL_AWS_ACCESS, LOCAL_AWS_CREDENTIALS, LOCAL_AWS_ENV } from '../support/local-aws';

let endpoints: LocalEndpoints;
let runner: LocalDurableTestRunner | undefined;
let clock = Date.now();
const approvals = new MemoryApprovalStore({ ttlSeconds: 60, now: () => clock });
const sent: SentMessage[] = [];
/** Every completion that reached the flow engines. */
let received: readonly EngineCompletion[] = [];
let logs: ReturnType<typeof captureLogs>;
const savedEnv = { ...process.env };

const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: ({ orderId }) => ({ refunded: orderId }) });
const handler = toolHandler(new ToolExecutor({ tools: [refund], approvals }), { replies: false });

/** What the queue delivers: each message as an SQS record to the handler. */
async function deliver(message: SentMessage): Promise<void> {
  sent.push(message);
  const record: SQSRecord = sqsRecord(message.messageId, message.body);
  await handler(sqsEvent(record));
}

beforeAll(async () => {
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
  // The runner has no HTTP endpoint: a callback completion is forwarded to its operation.
  const engines = flowEngines({
    onCompletion: async (completion) => {
      if (!runner || completion.engine !== 'durable') return false;
      const operation = runner.getOperation('tool:refund');
      if (completion.ok) await operation.sendCallbackSuccess(completion.output);
      else await operation.sendCallbackFailure({ ErrorType: completion.error, ErrorMessage: completion.cause, ErrorData: completion.errorData });
      return true;
    },
  });
  received = engines.received;
  // One port: SendMessage (by its X-Amz-Target) and the callbacks (by their path) each reach their own handler.
  endpoints = await startEndpoints({ onMessage: (message) => void deliver(message), completeFlow: engines.complete }, LOCAL_AWS_ACCESS);
  Object.assign(process.env, LOCAL_AWS_ENV, { AWS_ENDPOINT_URL_LAMBDA: endpoints.url });
  resetFlowEngineClients();
});
afterAll(async () => {
  await LocalDurableTestRunner.teardownTestEnvironment();
  resetFlowEngineClients();
  process.env = savedEnv;
  await endpoints.close();
});
beforeEach(() => {
  logs = captureLogs();
  sent.length = 0;
});
afterEach(() => logs.restore());

const client = () => new SQSClient({ region: 'us-east-1', endpoint: endpoints.url, credentials: LOCAL_AWS_CREDENTIALS });

/** A durable function that refunds an order through the handler and says how it went. */
function refundFlow(options: { submitTwice?: boolean; queue?: string; defaultClient?: boolean } = {}) {
  return withDurableExecution(async (event: { orderId: string }, ctx: DurableContext) => {
    const sqsClient = options.defaultClient ? undefined : client();
    const ctxSubmittingTwice = options.submitTwice
      ? {
          waitForCallback: <T,>(name: string | undefined, submitter: (id: string, c: unknown) => Promise<void>, config?: object) =>
            ctx.waitForCallback<T>(name, async (id, c) => {
              await submitter(id, c);
              await submitter(id, c);
            }, config),
        }
      : ctx;
    try {
      const queue = options.queue ?? `${endpoints.url}/123456789012/tools`;
      const reply = await callTool(ctxSubmittingTwice, { queue, tool: 'refund', args: { orderId: event.orderId }, sqs: sqsClient });
      return { status: reply.status, result: reply.result };
    } catch (error) {
      if (error instanceof ToolCallFailed) return { failed: error.error, message: error.message };
      throw error;
    }
  });
}

/** Waits until the handler has asked for the approval of `orderId`, and returns its id. */
async function pendingApproval(orderId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const record = (await approvals.list({ pending: true })).find((r) => r.args.orderId === orderId);
    if (record) return record.approvalId;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no approval was asked for ${orderId}`);
}

test('approve: the durable function gets the ok reply', async () => {
  runner = new LocalDurableTestRunner({ handlerFunction: refundFlow() });
  const execution = runner.run({ payload: { orderId: 'o-1' } });
  const approvalId = await pendingApproval('o-1');
  await approvals.decide(approvalId, { approved: true, by: 'alice' });
  await handler(sqsEvent(sqsRecord(`resume-${approvalId}`, { approval_id: approvalId })));
  const result = await execution;
  expect(result.getResult()).toEqual({ status: 'ok', result: { refunded: 'o-1' } });
  expect(sent).toHaveLength(1);
  expect(logs.text().join('\n')).not.toContain(JSON.parse(sent[0].body).reply_to.callback_id);
});

test('deny: the durable function catches ToolHandler.ApprovalDenied (carried in ErrorData, which the SDK keeps)', async () => {
  runner = new LocalDurableTestRunner({ handlerFunction: refundFlow() });
  const execution = runner.run({ payload: { orderId: 'o-2' } });
  const approvalId = await pendingApproval('o-2');
  await approvals.decide(approvalId, { approved: false, by: 'bob', reason: 'not eligible' });
  await handler(sqsEvent(sqsRecord(`resume-${approvalId}`, { approval_id: approvalId })));
  const result = await execution;
  expect(result.getResult()).toMatchObject({ failed: 'ToolHandler.ApprovalDenied', message: expect.stringContaining('not eligible') });
});

test('expire: the durable function catches ToolHandler.ApprovalExpired', async () => {
  runner = new LocalDurableTestRunner({ handlerFunction: refundFlow() });
  const execution = runner.run({ payload: { orderId: 'o-3' } });
  await pendingApproval('o-3');
  clock += 61_000;
  try {
    await approvalsExpirer({ store: approvals, targets: [flowTarget(approvals.flows)] })();
  } finally {
    clock = Date.now();
  }
  expect((await execution).getResult()).toMatchObject({ failed: 'ToolHandler.ApprovalExpired' });
});

test('a submitter that runs twice sends the same call twice, and the flow is completed once', async () => {
  runner = new LocalDurableTestRunner({ handlerFunction: refundFlow({ submitTwice: true }) });
  const execution = runner.run({ payload: { orderId: 'o-4' } });
  const approvalId = await pendingApproval('o-4');
  await approvals.decide(approvalId, { approved: true, by: 'alice' });
  await handler(sqsEvent(sqsRecord(`resume-${approvalId}`, { approval_id: approvalId })));
  await handler(sqsEvent(sqsRecord(`resume-again-${approvalId}`, { approval_id: approvalId })));
  expect((await execution).getResult()).toEqual({ status: 'ok', result: { refunded: 'o-4' } });
  expect(sent).toHaveLength(2);
  expect(JSON.parse(sent[0].body)).toEqual(JSON.parse(sent[1].body));
  const callbackId = JSON.parse(sent[0].body).reply_to.callback_id;
  expect(received.filter((c) => c.id === callbackId)).toHaveLength(1);
});

test('the default SQS client honours AWS_ENDPOINT_URL_SQS: the queue URL\'s own host is never asked', async () => {
  process.env.AWS_ENDPOINT_URL_SQS = endpoints.url;
  try {
    runner = new LocalDurableTestRunner({
      handlerFunction: refundFlow({ defaultClient: true, queue: 'https://sqs.us-east-1.amazonaws.com/123456789012/tools' }),
    });
    const execution = runner.run({ payload: { orderId: 'o-5' } });
    const approvalId = await pendingApproval('o-5');
    await approvals.decide(approvalId, { approved: true, by: 'alice' });
    await handler(sqsEvent(sqsRecord(`resume-${approvalId}`, { approval_id: approvalId })));
    expect((await execution).getResult()).toEqual({ status: 'ok', result: { refunded: 'o-5' } });
    expect(sent[0].queueUrl).toBe('https://sqs.us-east-1.amazonaws.com/123456789012/tools');
  } finally {
    delete process.env.AWS_ENDPOINT_URL_SQS;
  }
});

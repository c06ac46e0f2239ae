/**
 * Issue 9: nothing lost, nothing run twice under a slow and failing DynamoDB. A few hundred
 * side-effecting calls, and resumes of approved approvals, go through `toolHandler` in SQS batches, with the DynamoDB store behind a
 * fault-injecting proxy (throttles, 500s, resets before and after the table applied a write,
 * stalls past the SDK's timeout); whatever a batch does not acknowledge is redelivered, as SQS
 * would, until everything is acknowledged. Then every call must have run exactly once.
 * The fault counts are printed and written to `<tmpdir>/cdk-tool-handler-fault-injection.json`.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { DynamoApprovalStore, tool, toolHandler, ToolExecutor } from '../../lambda';
import { callFingerprint } from '../../lambda/ids';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { quickRetries } from '../support/quick-retries';

const CALLS = 300;
/** Of which resumes of approved approvals (the rest are plain calls). */
const RESUMES = 60;
const BATCH_SIZE = 10;
/** Invocations running at once. */
const INVOCATIONS = 6;
/** Short against the SDK's timeouts (with retries, a write may take over a second), so slow writes meet the deadline. */
const REMAINING_MS = 2500;
/** How long a failed record stays invisible before it is redelivered (SQS's visibility timeout). */
const VISIBILITY_MS = 150;
const REQUEST_TIMEOUT_MS = 400;
const WALL_CLOCK_LIMIT_MS = 45_000;
const MAX_ROUNDS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let logs: ReturnType<typeof captureLogs>;
let proxy: FaultProxy;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(async () => {
  logs.restore();
  await proxy?.close();
});

function clientVia(endpoint: string): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    retryStrategy: quickRetries(3),
    requestHandler: { connectionTimeout: REQUEST_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

test(`${CALLS} calls and resumes under DynamoDB faults with redelivery: 0 lost, 0 run twice`, async () => {
  const { tableName, client: direct } = await createTestTable();
  proxy = await startFaultProxy({
    target: dynaliteEndpoint(),
    seed: 20261202,
    stallMs: REQUEST_TIMEOUT_MS + 200,
    rates: { throttle: 0.05, provisioned: 0.03, server_error: 0.04, reset_before: 0.03, reset_after: 0.04, stall: 0.02 },
  });
  const store = new DynamoApprovalStore({ tableName, client: clientVia(proxy.endpoint) });
  const runs = new Map<string, number>();
  const count = (id: string) => runs.set(id, (runs.get(id) ?? 0) + 1);
  const charge = tool({ name: 'charge', input: z.object({ id: z.string() }), run: ({ id }) => count(id) && { charged: id } });
  const refund = tool({ name: 'refund', input: z.object({ id: z.string() }), requiresApproval: true, run: ({ id }) => count(id) && { refunded: id } });
  const handler = toolHandler(new ToolExecutor({ tools: [charge, refund], approvals: store }), { replies: false, margin: 0.5 });

  // Approved approvals to resume, set up without faults (an approver's work, not the handler's).
  const approver = new DynamoApprovalStore({ tableName, client: direct });
  const approvalIds = new Map<number, string>();
  for (let i = CALLS - RESUMES; i < CALLS; i++) {
    const args = { id: `c-${i}` };
    const approvalId = `apr_fault_${i}`;
    await approver.create({ approvalId, tool: 'refund', args, runId: 'faults', callId: `c-${i}`, fingerprint: callFingerprint('refund', args) });
    await approver.decide(approvalId, { approved: true, by: 'fault-test' });
    approvalIds.set(i, approvalId);
  }
  // Calls with their ids, calls that derive them from the message id (stable across redeliveries), resumes.
  const messages: SQSRecord[] = Array.from({ length: CALLS }, (_, i) => {
    const approvalId = approvalIds.get(i);
    if (approvalId) return sqsRecord(`m-${i}`, { approval_id: approvalId });
    return sqsRecord(`m-${i}`, i % 2 === 0 ? { tool: 'charge', args: { id: `c-${i}` }, run_id: 'faults', call_id: `c-${i}` } : { tool: 'charge', args: { id: `c-${i}` } });
  });
  const visibleAt = new Map(messages.map((message) => [message.messageId, 0]));
  const acknowledged = new Set<string>();
  let deliveries = 0;
  let thrownBatches = 0;
  let rounds = 0;
  const started = Date.now();

  while (acknowledged.size < CALLS && rounds < MAX_ROUNDS && Date.now() - started < WALL_CLOCK_LIMIT_MS) {
    rounds++;
    const now = Date.now();
    const visible = messages.filter((message) => !acknowledged.has(message.messageId) && visibleAt.get(message.messageId)! <= now);
    if (visible.length === 0) {
      await sleep(20);
      continue;
    }
    const batches: SQSRecord[][] = [];
    for (let i = 0; i < visible.length && batches.length < INVOCATIONS; i += BATCH_SIZE) batches.push(visible.slice(i, i + BATCH_SIZE));
    for (const batch of batches) for (const record of batch) visibleAt.set(record.messageId, Number.POSITIVE_INFINITY); // in flight
    await Promise.all(
      batches.map(async (batch) => {
        deliveries += batch.length;
        let failed: Set<string>;
        try {
          const response = (await handler(sqsEvent(...batch), lambdaContext(REMAINING_MS))) as SQSBatchResponse;
          failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
        } catch {
          thrownBatches++;
          failed = new Set(batch.map((record) => record.messageId));
        }
        for (const record of batch) {
          if (failed.has(record.messageId)) visibleAt.set(record.messageId, Date.now() + VISIBILITY_MS);
          else acknowledged.add(record.messageId);
        }
      }),
    );
  }

  const ids = messages.map((_, i) => `c-${i}`);
  // Lost: acknowledged, yet its tool never ran.
  const lost = messages.filter((message, i) => acknowledged.has(message.messageId) && !runs.has(ids[i]));
  const doubled = ids.filter((id) => (runs.get(id) ?? 0) > 1);
  const figures = {
    calls: CALLS,
    of_which_resumes: RESUMES,
    acknowledged: acknowledged.size,
    unacknowledged: CALLS - acknowledged.size,
    deliveries,
    redeliveries: deliveries - CALLS,
    thrown_batches: thrownBatches,
    lost: lost.length,
    doubled: doubled.length,
    requests: proxy.counts.requests,
    forwarded: proxy.counts.forwarded,
    faults: {
      throttle: proxy.counts.throttle,
      provisioned_throughput_exceeded: proxy.counts.provisioned,
      server_error_500: proxy.counts.server_error,
      reset_before_forwarding: proxy.counts.reset_before,
      reset_after_table_applied: proxy.counts.reset_after,
      stall_past_sdk_timeout: proxy.counts.stall,
    },
    duration_ms: Date.now() - started,
  };
  logs.restore();
  const file = join(tmpdir(), 'cdk-tool-handler-fault-injection.json');
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`fault injection: ${JSON.stringify(figures)} (written to ${file})`);

  expect(thrownBatches).toBe(0);
  expect(acknowledged.size).toBe(CALLS);
  expect(lost).toEqual([]);
  expect(doubled).toEqual([]);
  // The run exercised every kind of fault.
  for (const count of Object.values(figures.faults)) expect(count).toBeGreaterThan(0);
}, 60_000);

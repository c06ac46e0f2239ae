/**
 * Nothing lost, nothing run twice under a slow and failing DynamoDB. Side-effecting
 * calls, and resumes of approved approvals, go through `toolHandler` in SQS batches, with the
 * DynamoDB store behind a fault-injecting proxy (throttles, 500s, resets before and after the table
 * applied a write, stalls past the SDK's timeout); whatever a batch does not acknowledge is
 * redelivered, as SQS would, until everything is acknowledged. Then every call must have run exactly
 * once. It also sends duplicate copies (another message carrying the same call, as a producer that
 * sends twice does) arriving while the first copy's lease is held, including after a post-run write
 * that never landed, and invocations that crash mid-tool, whose records come back after the
 * visibility timeout and must still run.
 * The figures are printed and written to `<tmpdir>/cdk-tool-handler-fault-injection.json`.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { DynamoApprovalStore, tool, toolHandler, ToolExecutor } from '../../lambda';
import type { CallStore } from '../../lambda/stores/types';
import { callFingerprint } from '../../lambda/ids';
import { DEFAULT_CLIENT_TIMEOUTS } from '../../lambda/stores/dynamo-table';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { FAULT_KINDS, seededRandom, startFaultProxy, type FaultKind, type FaultProxy } from '../support/fault-proxy';
import { quickRetries } from '../support/quick-retries';

const CALLS = 300;
/** Calls per run of the five duplicate runs, and of the crash run. */
const DUPLICATE_RUN_CALLS = 120;
const CRASH_RUN_CALLS = 60;
const RESUMES = 100;
const BATCH_SIZE = 10;
/** Invocations running at once. */
const INVOCATIONS = 6;
/** Remaining time per invocation (margin 0.5 s: a 2.5 s deadline), short against a stalled write. */
const REMAINING_MS = 3000;
/** How long a failed record stays invisible before it is redelivered (SQS's visibility timeout). */
const VISIBILITY_MS = 300;
/** A visibility timeout longer than the invocation, as on a real queue (the construct's is 6 times the function timeout). */
const REAL_VISIBILITY_MS = 2 * REMAINING_MS;
/**
 * The runtime's own client timeouts (5 s per request): a stall (held past it, then applied late)
 * outlasts the deadline, as in production. Run against the code before the lease fixes, this test
 * saw 10 calls run twice and 6 resumes lost.
 */
const REQUEST_TIMEOUT_MS = DEFAULT_CLIENT_TIMEOUTS.requestTimeout;
const WALL_CLOCK_LIMIT_MS = 45_000;
const MAX_ROUNDS = 2000;
const RATES: Record<FaultKind, number> = {
  throttle: 0.05,
  provisioned: 0.03,
  server_error: 0.04,
  reset_before: 0.03,
  reset_after: 0.04,
  stall: 0.02,
};
const FIGURES_FILE = join(tmpdir(), 'cdk-tool-handler-fault-injection.json');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const figures: Record<string, unknown> = {};

let logs: ReturnType<typeof captureLogs>;
let proxy: FaultProxy | undefined;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(async () => {
  logs.restore();
  await proxy?.close();
  proxy = undefined;
});
afterAll(() => {
  writeFileSync(FIGURES_FILE, `${JSON.stringify(figures, null, 2)}\n`);
});

function clientVia(endpoint: string): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    retryStrategy: quickRetries(3),
    requestHandler: { ...DEFAULT_CLIENT_TIMEOUTS },
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * Delivers `count` messages (built by `body(i)`; message i's tool records a run of `c-<i>`) through
 * the handler behind a proxy with `rates`, redelivering whatever was not acknowledged.
 */
interface RunOptions {
  readonly count: number;
  readonly rates: Partial<Record<FaultKind, number>>;
  readonly resumes: boolean;
  readonly visibilityMs?: number;
  /**
   * Share of the calls with explicit ids sent twice: a second message carrying the same call becomes
   * visible at a random time from the first copy's first delivery to 1.5 s after its invocation's
   * end (before it takes the call, while it runs, after its post-run write failed). @default 0
   */
  readonly duplicates?: number;
  /** Share of the calls whose first run crashes its invocation (the tool never returns). @default 0 */
  readonly crashes?: number;
  /**
   * Share of the calls whose post-run `finish` write never lands (it fails every time until the
   * invocation's end: the case a fault run found, made common here). @default 0
   */
  readonly lostFinishes?: number;
  readonly seed?: number;
}

async function runUnderFaults(name: string, options: RunOptions) {
  const seed = options.seed ?? 20261202;
  const random = seededRandom(seed);
  const { tableName, client: direct } = await createTestTable();
  proxy = await startFaultProxy({ target: dynaliteEndpoint(), seed, stallMs: REQUEST_TIMEOUT_MS + 200, rates: options.rates });
  const store = new DynamoApprovalStore({ tableName, client: clientVia(proxy.endpoint) });
  const visibilityMs = options.visibilityMs ?? VISIBILITY_MS;
  const runs = new Map<string, number>();
  const count = (id: string) => runs.set(id, (runs.get(id) ?? 0) + 1);
  // A crash: the tool never returns (ignoring its signal), and Lambda ends the invocation at its timeout.
  const crashing = new Set<string>();
  const crashed = new Set<string>();
  const hangs = (id: string) => crashing.delete(id) && (crashed.add(id), true);
  const never = () => new Promise<never>(() => undefined);
  const charge = tool({ name: 'charge', input: z.object({ id: z.string() }), run: ({ id }) => (hangs(id) ? never() : count(id) && { charged: id }) });
  const refund = tool({ name: 'refund', input: z.object({ id: z.string() }), requiresApproval: true, run: ({ id }) => count(id) && { refunded: id } });
  const unfinished = new Set<string>();
  const calls: CallStore = {
    begin: (key, input) => store.begin(key, input),
    abandon: (key, token) => store.abandon(key, token),
    finish: (key, token, reply) => (unfinished.has(key.callId) ? Promise.reject(new Error('finish lost')) : store.finish(key, token, reply)),
  };
  const handler = toolHandler(new ToolExecutor({ tools: [charge, refund], approvals: store, calls }), { replies: false, margin: 0.5 });

  const messages: SQSRecord[] = [];
  for (let i = 0; i < options.count; i++) {
    const args = { id: `c-${i}` };
    if (options.resumes) {
      // Approved approvals, set up without faults (an approver's work, not the handler's).
      const approver = new DynamoApprovalStore({ tableName, client: direct });
      const approvalId = `apr_fault_${i}`;
      await approver.create({ approvalId, tool: 'refund', args, runId: 'faults', callId: `c-${i}`, fingerprint: callFingerprint('refund', args) });
      await approver.decide(approvalId, { approved: true, by: 'fault-test' });
      messages.push(sqsRecord(`m-${i}`, { approval_id: approvalId }));
    } else {
      // Half carry their ids, half derive them from the message id (stable across redeliveries).
      messages.push(sqsRecord(`m-${i}`, i % 2 === 0 ? { tool: 'charge', args, run_id: 'faults', call_id: `c-${i}` } : { tool: 'charge', args }));
      if (random() < (options.crashes ?? 0)) crashing.add(`c-${i}`);
      if (i % 2 === 0 && random() < (options.lostFinishes ?? 0)) unfinished.add(`c-${i}`);
    }
  }
  /** The call each message carries (`c-<i>`), duplicates included. */
  const callOf = new Map(messages.map((message, i) => [message.messageId, `c-${i}`]));
  /** Duplicates, by the message they copy: they become visible once that one was first delivered. */
  const duplicateOf = new Map<string, SQSRecord>();
  if (!options.resumes) {
    messages.forEach((message, i) => {
      if (i % 2 === 0 && random() < (options.duplicates ?? 0)) {
        const copy = sqsRecord(`d-${i}`, JSON.parse(message.body));
        duplicateOf.set(message.messageId, copy);
        callOf.set(copy.messageId, `c-${i}`);
      }
    });
  }
  const all = [...messages, ...duplicateOf.values()];
  // From before the first copy starts its call to after its invocation has ended.
  const duplicateDelay = () => Math.floor(random() * (REMAINING_MS + 1500));

  const visibleAt = new Map(all.map((message) => [message.messageId, message.messageId.startsWith('d-') ? Number.POSITIVE_INFINITY : 0]));
  const receives = new Map<string, number>();
  const acknowledged = new Set<string>();
  let deliveries = 0;
  let thrownBatches = 0;
  let rounds = 0;
  const started = Date.now();
  while (acknowledged.size < all.length && rounds < MAX_ROUNDS && Date.now() - started < WALL_CLOCK_LIMIT_MS) {
    rounds++;
    const now = Date.now();
    const visible = all.filter((message) => !acknowledged.has(message.messageId) && visibleAt.get(message.messageId)! <= now);
    if (visible.length === 0) {
      await sleep(20);
      continue;
    }
    const batches: SQSRecord[][] = [];
    for (let i = 0; i < visible.length && batches.length < INVOCATIONS; i += BATCH_SIZE) batches.push(visible.slice(i, i + BATCH_SIZE));
    for (const batch of batches) {
      for (const record of batch) {
        visibleAt.set(record.messageId, Number.POSITIVE_INFINITY); // in flight
        receives.set(record.messageId, (receives.get(record.messageId) ?? 0) + 1);
        const copy = duplicateOf.get(record.messageId);
        if (copy && receives.get(record.messageId) === 1) visibleAt.set(copy.messageId, Date.now() + duplicateDelay());
      }
    }
    await Promise.all(
      batches.map(async (batch) => {
        deliveries += batch.length;
        const crashedBefore = crashed.size;
        let failed: Set<string>;
        try {
          const response = (await handler(sqsEvent(...batch), lambdaContext(REMAINING_MS))) as SQSBatchResponse;
          failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
        } catch {
          thrownBatches++;
          failed = new Set(batch.map((record) => record.messageId));
        }
        // Lambda killed the invocation of a tool that never returned: nothing of the batch was deleted.
        if (crashed.size > crashedBefore) failed = new Set(batch.map((record) => record.messageId));
        for (const record of batch) {
          if (failed.has(record.messageId)) {
            visibleAt.set(record.messageId, Date.now() + visibilityMs);
            continue;
          }
          acknowledged.add(record.messageId);
        }
      }),
    );
  }

  // Lost: acknowledged, yet its call never ran. Doubled: ran more than once.
  const lost = all.filter((message) => acknowledged.has(message.messageId) && !runs.has(callOf.get(message.messageId)!)).map((m) => m.messageId);
  const doubled = messages.filter((_, i) => (runs.get(`c-${i}`) ?? 0) > 1).map((m) => m.messageId);
  const counts = proxy.counts;
  const result = {
    messages: all.length,
    duplicates: duplicateOf.size,
    lost_finishes: unfinished.size,
    crashed: crashed.size,
    acknowledged: acknowledged.size,
    deliveries,
    redeliveries: deliveries - all.length,
    thrown_batches: thrownBatches,
    lost: lost.length,
    doubled: doubled.length,
    requests: counts.requests,
    forwarded: counts.forwarded,
    faults: Object.fromEntries(FAULT_KINDS.map((kind) => [kind, counts[kind]])),
    duration_ms: Date.now() - started,
  };
  // Why deliveries failed or warned, for the figures file (ids and numbers masked).
  const reasons: Record<string, number> = {};
  for (const line of logs.lines()) {
    if (line.level === 'INFO') continue;
    const error = typeof line.error === 'object' ? (line.error as { type: string; message: string }) : undefined;
    const text = error ? `${error.type}: ${error.message}` : `${String(line.level)}: ${String(line.message)}`;
    const key = text.replace(/[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*/g, '#').slice(0, 100);
    reasons[key] = (reasons[key] ?? 0) + 1;
  }
  figures[name] = { ...result, failure_reasons: reasons };
  logs.restore();
  console.log(`fault injection, ${name}: ${JSON.stringify(result)} (also in ${FIGURES_FILE})`);
  return { result, lost, doubled, thrownBatches, acknowledged, receives, crashed: [...crashed], runs, all };
}

test(`${CALLS} calls under every kind of DynamoDB fault, with redelivery: 0 lost, 0 run twice`, async () => {
  const run = await runUnderFaults('calls', { count: CALLS, rates: RATES, resumes: false });
  expect(run.thrownBatches).toBe(0);
  expect(run.acknowledged.size).toBe(CALLS);
  expect(run.lost).toEqual([]);
  expect(run.doubled).toEqual([]);
  for (const kind of FAULT_KINDS) expect(run.result.faults[kind]).toBeGreaterThan(0);
}, 60_000);

/**
 * Resumes without stalls: a claim write that the table applies only after its client gave up (and
 * after the read that checks for it) leaves a claim nobody runs, which a resume answers `already_done`
 * until it lapses; that case belongs to the approvals engine's rework (see the README).
 */
test(`${RESUMES} resumes of approved approvals under throttles, 500s and resets, with redelivery: 0 lost, 0 run twice`, async () => {
  const { stall: _excluded, ...rates } = RATES;
  // As on SQS, a failed delivery comes back only after its visibility timeout (there 6 x the function
  // timeout), which outlasts the claims its invocation took: a claim applied after its client gave up
  // has lapsed by then, and the redelivery runs the tool (see the README on claims).
  const run = await runUnderFaults('resumes', { count: RESUMES, rates, resumes: true, visibilityMs: REMAINING_MS + 100 });
  expect(run.thrownBatches).toBe(0);
  expect(run.acknowledged.size).toBe(RESUMES);
  expect(run.lost).toEqual([]);
  expect(run.doubled).toEqual([]);
}, 60_000);

/**
 * A post-run write that never lands (the tool ran, `finish` failed until the
 * invocation's end) must survive another copy of the call without a second run. An SQS message's
 * lease holds against every other delivery while the call item lives (the message itself comes back
 * should its run have failed), so another copy, whenever it comes, is answered `already_done`
 * without running. Five consecutive runs, with other seeds each.
 */
describe.each([1, 2, 3, 4, 5])('duplicate copies under faults, run %i of 5', (n) => {
  test('0 lost, 0 run twice', async () => {
    // Without stalls (the 300-call run above has them): they only lengthen each run by the SDK's timeout.
    const { stall: _excluded, ...rates } = RATES;
    const run = await runUnderFaults(`duplicates-${n}`, {
      count: DUPLICATE_RUN_CALLS,
      rates,
      resumes: false,
      visibilityMs: REAL_VISIBILITY_MS,
      duplicates: 0.6,
      lostFinishes: 0.3,
      seed: 20261203 + n,
    });
    expect(run.result.duplicates).toBeGreaterThan(DUPLICATE_RUN_CALLS / 5);
    expect(run.result.lost_finishes).toBeGreaterThan(0);
    expect(run.thrownBatches).toBe(0);
    expect(run.acknowledged.size).toBe(run.all.length);
    expect(run.lost).toEqual([]);
    expect(run.doubled).toEqual([]);
  }, 60_000);
});

test('crashed invocations (a tool that never returns): every call comes back after the visibility timeout and runs, each at its first redelivery', async () => {
  const run = await runUnderFaults('crash-redelivery', {
    count: CRASH_RUN_CALLS,
    rates: {},
    resumes: false,
    visibilityMs: REAL_VISIBILITY_MS,
    crashes: 0.2,
    seed: 20261209,
  });
  expect(run.crashed.length).toBeGreaterThan(CRASH_RUN_CALLS / 10);
  expect(run.acknowledged.size).toBe(run.all.length);
  expect(run.lost).toEqual([]);
  // A crashed call's own redelivery finds its lease lapsed: it runs then, not one timeout later.
  for (const id of run.crashed) {
    expect({ id, runs: run.runs.get(id) }).toEqual({ id, runs: 1 });
    const message = `m-${id.slice('c-'.length)}`;
    expect({ message, receives: run.receives.get(message) }).toEqual({ message, receives: 2 });
  }
}, 60_000);

/**
 * Trace context: a `traceparent` from each source (the envelope's `trace`, an SQS record's
 * `AWSTraceHeader`, a Gateway call's propagated header) arrives in `ctx.trace`, in the call's log
 * line (which is its audit record: `trace_id`, an EMF property, never a dimension) and in its
 * reply; it is kept with an approval (through the real approvals engine and its table) so that the
 * resume continues the asking call's trace. A malformed value is ignored, never an error.
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { approvalsEngine } from '../../lambda/approvals/engine';
import { EngineApprovals } from '../../lambda/approvals/engine-client';
import { DynamoApprovalStore, tool, toolHandler, ToolExecutor, type ErrorReply, type Reply, type ToolContext } from '../../lambda';
import { startEndpoints, type LocalEndpoints } from '../../local/endpoints';
import { createTestTable } from '../support/dynamo';
import { captureLogs, gatewayContext, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { LOCAL_AWS_ACCESS, LOCAL_AWS_CREDENTIALS, LOCAL_AWS_ENV } from '../support/local-aws';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

const seen: Array<ToolContext['trace']> = [];
const echo = tool({ name: 'echo', run: (_args, ctx) => void seen.push(ctx.trace) });
const refund = tool({ name: 'refund', requiresApproval: true, run: (_args, ctx) => void seen.push(ctx.trace) });

let endpoints: LocalEndpoints;
let store: DynamoApprovalStore;
const published: Array<Reply | ErrorReply> = [];
const saved = { ...process.env };

beforeAll(async () => {
  const { tableName, client } = await createTestTable();
  store = new DynamoApprovalStore({ tableName, client });
  const engine = approvalsEngine({ store, allowed: new Set(['refund']), claimMaxMs: 30_000 });
  endpoints = await startEndpoints(
    { invoke: (name, event) => (name === 'engine' ? engine(JSON.parse(JSON.stringify(event))).then((result) => ({ ok: true as const, result })) : undefined), onEvent: () => undefined },
    LOCAL_AWS_ACCESS,
  );
  Object.assign(process.env, LOCAL_AWS_ENV);
});
afterAll(async () => {
  process.env = saved;
  await endpoints.close();
});

/** A handler whose approvals go through the engine (as the construct's do), its calls and replies recorded. */
function handler() {
  const approvals = new EngineApprovals({
    functionName: 'engine',
    client: new LambdaClient({ endpoint: endpoints.url, region: LOCAL_AWS_ENV.AWS_REGION, credentials: LOCAL_AWS_CREDENTIALS }),
  });
  const executor = new ToolExecutor({ tools: [echo, refund], approvals, calls: store });
  return toolHandler(executor, { replies: { publish: async (reply) => void published.push(reply) } });
}

async function run<T>(work: () => Promise<T>): Promise<{ result: T; lines: Array<Record<string, any>> }> {
  const logs = captureLogs();
  seen.length = 0;
  published.length = 0;
  try {
    const result = await work();
    return { result, lines: logs.lines().filter((l) => l.message === 'tool call') };
  } finally {
    logs.restore();
  }
}

function expectTraced(line: Record<string, any>, traceId = TRACE_ID): void {
  expect(line.record).toBe('audit');
  expect(line.trace_id).toBe(traceId);
  // An EMF property: a top-level member that is no dimension.
  const dimensions = line._aws.CloudWatchMetrics[0].Dimensions.flat();
  expect(dimensions).not.toContain('trace_id');
}

test('the envelope\'s trace: ctx.trace, the log line (audit record), the reply', async () => {
  const { result, lines } = await run(() => handler()({ tool: 'echo', args: {}, trace: { traceparent: TRACEPARENT, tracestate: 'vendor=1' } }));
  expect(seen).toEqual([{ traceparent: TRACEPARENT, tracestate: 'vendor=1', traceId: TRACE_ID }]);
  expectTraced(lines[0]);
  expect(result).toMatchObject({ status: 'ok', trace_id: TRACE_ID });
});

test("an SQS record's AWSTraceHeader, converted: ctx.trace, the log line, the reply on the bus", async () => {
  const record = sqsRecord('m1', { tool: 'echo', args: {} });
  const traced = { ...record, attributes: { ...record.attributes, AWSTraceHeader: `Root=1-${TRACE_ID.slice(0, 8)}-${TRACE_ID.slice(8)};Parent=53995c3f42cd8ad8;Sampled=1` } };
  const { lines } = await run(() => handler()(sqsEvent(traced), lambdaContext(10_000)));
  expect(seen).toEqual([{ traceparent: `00-${TRACE_ID}-53995c3f42cd8ad8-01`, traceId: TRACE_ID }]);
  expectTraced(lines[0]);
  expect(published).toEqual([expect.objectContaining({ status: 'ok', trace_id: TRACE_ID })]);
});

test("a Gateway call's propagated traceparent (an MCP client's _meta): ctx.trace, the log line, the reply", async () => {
  const context = gatewayContext('t___echo');
  (context.clientContext!.custom as Record<string, string>).bedrockAgentCorePropagatedHeaders = JSON.stringify({ TraceParent: TRACEPARENT });
  const { result, lines } = await run(() => handler()({}, context));
  expect(seen).toEqual([{ traceparent: TRACEPARENT, traceId: TRACE_ID }]);
  expectTraced(lines[0]);
  expect(result).toMatchObject({ status: 'ok', trace_id: TRACE_ID });
});

test('across an approval and its resume: the resume continues the asking call\'s trace, whatever trace the resume carries', async () => {
  const h = handler();
  const asked = await run(() => h({ tool: 'refund', args: { n: 1 }, trace: { traceparent: TRACEPARENT } }));
  const pending = asked.result as Extract<Reply, { status: 'pending_approval' }>;
  expect(pending).toMatchObject({ status: 'pending_approval', trace_id: TRACE_ID });
  expectTraced(asked.lines[0]);
  await store.decide(pending.approval_id, { approved: true, by: 'alice' });

  const record = sqsRecord('m2', { approval_id: pending.approval_id });
  const otherTrace = { ...record, attributes: { ...record.attributes, AWSTraceHeader: 'Root=1-0af76519-16cd43dd8448eb211c80319c;Parent=b7ad6b7169203331;Sampled=1' } };
  const resumed = await run(() => h(sqsEvent(otherTrace), lambdaContext(10_000)));
  expect(seen).toEqual([{ traceparent: TRACEPARENT, traceId: TRACE_ID }]);
  expectTraced(resumed.lines[0]);
  expect(published).toEqual([expect.objectContaining({ status: 'ok', approval_id: pending.approval_id, trace_id: TRACE_ID })]);
});

test('a malformed trace is ignored (logged once per source), never an error: the call runs without one', async () => {
  const h = handler();
  const logs = captureLogs();
  seen.length = 0;
  try {
    for (const trace of [{ traceparent: 'nope' }, 'text', { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }]) {
      await expect(h({ tool: 'echo', args: {}, trace })).resolves.toMatchObject({ status: 'ok' });
    }
  } finally {
    logs.restore();
  }
  expect(seen).toEqual([undefined, undefined, undefined]);
  const lines = logs.lines();
  expect(lines.filter((l) => l.message === 'tool call').map((l) => l.trace_id)).toEqual([null, null, null]);
  expect(lines.filter((l) => String(l.message).startsWith('a malformed trace context')).length).toBeLessThanOrEqual(1);
  expect(lines.every((l) => !JSON.stringify(l).includes('nope'))).toBe(true);
});

test('a call without a trace: no trace_id key in its reply, null in its line', async () => {
  const { result, lines } = await run(() => handler()({ tool: 'echo', args: {} }));
  expect(result).not.toHaveProperty('trace_id');
  expect(lines[0].trace_id).toBeNull();
  expect(seen).toEqual([undefined]);
});

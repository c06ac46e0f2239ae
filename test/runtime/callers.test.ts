/**
 * Who asked, through the real handler (`toolHandler`): the caller each host proves (SQS from an
 * AWS-published sample, Bedrock Agents' session attribute), never the args; `requiresCaller`; two
 * callers never sharing a call or an approval; an approval that records who asked and a resume that
 * runs for that caller, whoever resumes it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { toApiRecord } from '../../lambda/approvals/api-record';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type Caller, type ReplyPublisher } from '../../lambda';
import { captureLogs, lambdaContext } from '../support/events';

const SAMPLE = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'events', 'sqs-base.json'), 'utf8'));
/** The sample's first record carrying an envelope instead of its text. */
const sampleRecord = (envelope: unknown, messageId = 'sample-1') => ({ ...SAMPLE.Records[0], messageId, body: JSON.stringify(envelope) });
const SAMPLE_SENDER = SAMPLE.Records[0].attributes.SenderId as string;

const seen: Array<{ tool: string; caller: Caller | undefined }> = [];
const whoami = tool({ name: 'whoami', run: (_args, ctx) => (seen.push({ tool: 'whoami', caller: ctx.caller }), ctx.caller ?? null) });
const strict = tool({ name: 'strict', requiresCaller: true, run: (_args, ctx) => ctx.caller!.id });
const refund = tool({
  name: 'refund',
  input: z.object({ orderId: z.string() }),
  requiresApproval: true,
  run: ({ orderId }, ctx) => (seen.push({ tool: 'refund', caller: ctx.caller }), { refunded: orderId }),
});
const strictRefund = tool({ name: 'strict_refund', requiresCaller: true, requiresApproval: true, run: () => 'done' });

function setUp(env: Record<string, string> = {}) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const approvals = new MemoryApprovalStore();
  const published: Array<{ reply: any; extras: any }> = [];
  const replies: ReplyPublisher = { publish: async (reply, extras) => void published.push({ reply, extras }) };
  const handler = toolHandler(new ToolExecutor({ tools: [whoami, strict, refund, strictRefund], approvals }), { replies });
  process.env = saved;
  return { handler, approvals, published };
}

function bedrockEvent(fn: string, sessionId: string, sessionAttributes: Record<string, string>, parameters: unknown[] = []) {
  return {
    messageVersion: '1.0',
    agent: { name: 'a', id: 'AGENT1', alias: 'TSTALIASID', version: 'DRAFT' },
    sessionId,
    actionGroup: 'tools',
    function: fn,
    parameters,
    inputText: 'hi',
    sessionAttributes,
    promptSessionAttributes: {},
  };
}

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  seen.length = 0;
  logs = captureLogs();
});
afterEach(() => logs.restore());

describe('SQS: the sender SQS attests (attributes.SenderId)', () => {
  test('reaches the tool as a verified iam caller, from an AWS-published sample event', async () => {
    const { handler, published } = setUp();
    const result = await handler({ Records: [sampleRecord({ tool: 'whoami', args: { userId: 'someone-else' } })] }, lambdaContext(10_000));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual([{ tool: 'whoami', caller: { id: SAMPLE_SENDER, kind: 'iam', source: 'sqs', verified: true } }]);
    // An arg that names a user is an arg, nothing more.
    expect(published[0].reply.result.id).toBe(SAMPLE_SENDER);
  });

  test('a record without SenderId (a hand-made event) has no caller, and a tool that requires one refuses it', async () => {
    const { handler, published } = setUp();
    const record = sampleRecord({ tool: 'strict' });
    const { SenderId: _dropped, ...attributes } = record.attributes;
    await handler({ Records: [{ ...record, attributes }] }, lambdaContext(10_000));
    expect(published[0].reply).toMatchObject({ status: 'error', error: { type: 'CallerRequired', retryable: false } });
    expect(published[0].reply.error.message).toMatch(/acts only for a verified caller/);
  });
});

describe('requiresCaller', () => {
  test('a direct invoke (no caller) is refused before the tool runs or an approval is asked', async () => {
    const { handler, approvals } = setUp();
    await expect(handler({ tool: 'strict' }, lambdaContext(10_000))).rejects.toMatchObject({ name: 'CallerRequired', retryable: false });
    await expect(handler({ tool: 'strict_refund', run_id: 'r', call_id: 'c' }, lambdaContext(10_000))).rejects.toMatchObject({ name: 'CallerRequired' });
    expect((await approvals.listPage({})).records).toEqual([]);
  });

  test('a Bedrock Agents session attribute names a caller, but an unverified one: refused too', async () => {
    const { handler } = setUp({ TOOL_HANDLER_BEDROCK_CALLER_ATTRIBUTE: 'userId' });
    const response: any = await handler(bedrockEvent('strict', 's1', { userId: 'u-1' }), lambdaContext(10_000));
    expect(JSON.parse(response.response.functionResponse.responseBody.TEXT.body)).toMatchObject({ status: 'error', error: { type: 'CallerRequired' } });
  });

  test('a verified caller passes', async () => {
    const { handler, published } = setUp();
    await handler({ Records: [sampleRecord({ tool: 'strict' })] }, lambdaContext(10_000));
    expect(published[0].reply).toMatchObject({ status: 'ok', result: SAMPLE_SENDER });
  });
});

describe('Bedrock Agents: the session attribute the construct names', () => {
  test('is the caller, unverified; without the setting, no caller', async () => {
    const named = setUp({ TOOL_HANDLER_BEDROCK_CALLER_ATTRIBUTE: 'userId' });
    await named.handler(bedrockEvent('whoami', 's1', { userId: 'u-42', other: 'x' }), lambdaContext(10_000));
    const unnamed = setUp();
    await unnamed.handler(bedrockEvent('whoami', 's1', { userId: 'u-42' }), lambdaContext(10_000));
    expect(seen.map((s) => s.caller)).toEqual([{ id: 'u-42', kind: 'user', source: 'bedrock-agent', verified: false }, undefined]);
  });

  test('two users in the same session with the same args never share a call: each runs, each has its own approval', async () => {
    const { handler, approvals } = setUp({ TOOL_HANDLER_BEDROCK_CALLER_ATTRIBUTE: 'userId' });
    const parameters = [{ name: 'orderId', type: 'string', value: 'o-7' }];
    for (const user of ['ana', 'ben', 'ana']) await handler(bedrockEvent('refund', 'shared', { userId: user }, parameters), lambdaContext(10_000));
    await handler(bedrockEvent('whoami', 'shared', { userId: 'ana' }), lambdaContext(10_000));
    await handler(bedrockEvent('whoami', 'shared', { userId: 'ben' }), lambdaContext(10_000));
    const records = (await approvals.listPage({})).records;
    expect(records.map((r) => r.requestedBy?.id).sort()).toEqual(['ana', 'ben']);
    expect(new Set(records.map((r) => r.runId)).size).toBe(2);
    expect(seen.map((s) => s.caller?.id)).toEqual(['ana', 'ben']);
  });
});

describe('approvals know who asked', () => {
  test('the record keeps the caller; the API shows id, kind and verified; the bus event says who asked', async () => {
    const { handler, approvals, published } = setUp();
    await handler({ Records: [sampleRecord({ tool: 'refund', args: { orderId: 'o-1' }, run_id: 'r1', call_id: 'c1' })] }, lambdaContext(10_000));
    const pending = published[0];
    expect(pending.reply).toMatchObject({ status: 'pending_approval' });
    expect(pending.extras.caller).toEqual({ id: SAMPLE_SENDER, kind: 'iam', source: 'sqs', verified: true });
    const record = (await approvals.read(pending.reply.approval_id))!;
    expect(record.requestedBy).toEqual({ id: SAMPLE_SENDER, kind: 'iam', source: 'sqs', verified: true });
    expect(toApiRecord(record).requested_by).toEqual({ id: SAMPLE_SENDER, kind: 'iam', verified: true });
  });

  test('a call without a caller: no requested_by', async () => {
    const { handler, approvals } = setUp();
    const pending: any = await handler({ tool: 'refund', args: { orderId: 'o-2' } }, lambdaContext(10_000));
    const record = (await approvals.read(pending.approval_id))!;
    expect(record.requestedBy).toBeUndefined();
    expect(toApiRecord(record)).not.toHaveProperty('requested_by');
  });

  test('the resume runs for the caller that asked, not for whoever resumed it, and its audit record says so', async () => {
    const { handler, approvals } = setUp();
    await handler({ Records: [sampleRecord({ tool: 'refund', args: { orderId: 'o-3' }, run_id: 'r3', call_id: 'c3' })] }, lambdaContext(10_000));
    const [record] = (await approvals.listPage({ status: 'pending' })).records;
    await approvals.decide(record.approvalId, { approved: true, by: 'arn:aws:iam::1:user/boss' });
    // Resumed by a direct invoke, which proves no caller.
    await handler({ approval_id: record.approvalId }, lambdaContext(10_000));
    expect(seen).toEqual([{ tool: 'refund', caller: { id: SAMPLE_SENDER, kind: 'iam', source: 'sqs', verified: true } }]);
    const resumed = logs.lines().find((line) => line.approval_id === record.approvalId && line.outcome === 'ok')!;
    expect(resumed).toMatchObject({ 'enduser.id': SAMPLE_SENDER, 'caller.kind': 'iam', 'caller.verified': true, source: 'lambda' });
  });
});

describe('the call line is the audit record', () => {
  const FIELDS = [
    'record', 'time', 'owner', 'event', 'gen_ai.tool.name', 'gen_ai.tool.call.id', 'run_id', 'approval_id', 'enduser.id',
    'caller.kind', 'caller.verified', 'source', 'outcome', 'duration_ms', 'args_sha256', 'trace_id', 'message_id',
  ];

  test('every outcome writes one, with every field, never the args', async () => {
    const { handler } = setUp();
    const secret = 'ARG-SECRET-4111';
    await handler({ Records: [sampleRecord({ tool: 'whoami', args: { note: secret } }, 'm-ok')] }, lambdaContext(10_000));
    await handler({ tool: 'refund', args: { orderId: secret }, run_id: 'ra', call_id: 'ca' }, lambdaContext(10_000));
    await handler({ tool: 'refund', args: { orderId: 42 } }, lambdaContext(10_000)).catch(() => undefined);
    await handler({ tool: 'nope', args: { x: secret } }, lambdaContext(10_000)).catch(() => undefined);
    await handler({ tool: 'strict' }, lambdaContext(10_000)).catch(() => undefined);
    const lines = logs.lines().filter((line) => line.record === 'audit');
    expect(lines.map((line) => line.outcome)).toEqual(['ok', 'pending_approval', 'ToolUsageError', 'ToolNotFound', 'CallerRequired']);
    for (const line of lines) {
      for (const field of FIELDS) expect({ field, present: field in line }).toEqual({ field, present: true });
      expect(line).toMatchObject({ record: 'audit', event: 'call', owner: 'handler' });
      expect(new Date(line.time as string).toISOString()).toBe(line.time);
    }
    expect(lines[0]).toMatchObject({ 'enduser.id': SAMPLE_SENDER, 'gen_ai.tool.name': 'whoami', message_id: 'm-ok' });
    expect(lines[1].args_sha256).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{43}$/));
    expect(logs.text().join('\n')).not.toContain(secret);
  });
});

/**
 * The AgentCore Gateway adapter, in process on the DynamoDB store against dynalite: the event
 * is the tool's args, the tool's name and the session come in `context.clientContext.custom`.
 * (The same adapter through the real bundle: test/construct/gateway-bundle.test.ts.)
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { DynamoApprovalStore, tool, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import { canonicalJson } from '../../lambda/json';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { createTestTable } from '../support/dynamo';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

function gatewayContext(toolName: string, sessionId?: string, spelling = 'bedrockAgentCoreToolName', remainingMs = 10_000) {
  return {
    ...lambdaContext(remainingMs),
    clientContext: {
      client: {} as never,
      env: {} as never,
      custom: { [spelling]: toolName, ...(sessionId === undefined ? {} : { bedrockAgentCoreSessionId: sessionId }) },
    },
  };
}

function b64sha(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

async function setUp() {
  const { tableName, client } = await createTestTable();
  const store = new DynamoApprovalStore({ tableName, client });
  const runs: string[] = [];
  const published: unknown[] = [];
  const replies: ReplyPublisher = { publish: async (reply) => void published.push(reply) };
  const charge = tool({
    name: 'charge',
    input: z.object({ amount: z.number(), meta: z.object({ b: z.string(), a: z.string() }).optional() }),
    run: ({ amount }) => {
      runs.push(`charge:${amount}`);
      return { charged: amount };
    },
  });
  const boom = tool({ name: 'boom', run: () => Promise.reject(new Error('kaput')) });
  const hidden = tool({ name: 'hidden', run: () => 'secret' });
  const handler = toolHandler(new ToolExecutor({ tools: [charge, boom, hidden], approvals: store }), {
    replies,
    tools: ['charge', 'boom'],
  });
  return { handler, runs, published, store };
}

describe('a Gateway call', () => {
  test('the event is the args; the name is stripped through the first ___; source agentcore', async () => {
    const { handler, runs } = await setUp();
    const reply = await handler({ amount: 3 }, gatewayContext('billing___charge', 's-1'));
    expect(reply).toMatchObject({ status: 'ok', tool: 'charge', result: { charged: 3 } });
    expect(runs).toEqual(['charge:3']);
  });

  test('ids: run_id from target and session, call_id from tool and canonical args', async () => {
    const { handler } = await setUp();
    const reply = (await handler({ meta: { b: '2', a: '1' }, amount: 4 }, gatewayContext('billing___charge', 's-2'))) as any;
    expect(reply.run_id).toBe(`agc_${b64sha(canonicalJson(['billing', 's-2']))}`);
    expect(reply.call_id).toBe(`agc_${b64sha(canonicalJson(['charge', { amount: 4, meta: { a: '1', b: '2' } }]))}`);
  });

  test('an identical call in one session runs once; the kept reply says replayed', async () => {
    const { handler, runs } = await setUp();
    const first = await handler({ amount: 5, meta: { a: 'x', b: 'y' } }, gatewayContext('t___charge', 's-3'));
    const again = await handler({ meta: { b: 'y', a: 'x' }, amount: 5 }, gatewayContext('t___charge', 's-3'));
    expect(first).not.toHaveProperty('replayed');
    expect(again).toEqual({ ...first, replayed: true });
    expect(runs).toEqual(['charge:5']);
    const otherSession = await handler({ amount: 5, meta: { a: 'x', b: 'y' } }, gatewayContext('t___charge', 's-4'));
    expect(otherSession).not.toHaveProperty('replayed');
    expect(runs).toEqual(['charge:5', 'charge:5']);
  });

  test('without a session the ids are fresh: no suppression', async () => {
    const { handler, runs } = await setUp();
    const a = (await handler({ amount: 6 }, gatewayContext('t___charge'))) as any;
    const b = (await handler({ amount: 6 }, gatewayContext('t___charge'))) as any;
    expect(a.run_id).not.toBe(b.run_id);
    expect(runs).toEqual(['charge:6', 'charge:6']);
  });

  test('the lower-case spelling bedrockagentcoreToolName is accepted; a name without ___ is the tool', async () => {
    const { handler } = await setUp();
    expect(await handler({ amount: 1 }, gatewayContext('t___charge', 's', 'bedrockagentcoreToolName'))).toMatchObject({ status: 'ok' });
    expect(await handler({ amount: 1 }, gatewayContext('charge', 's'))).toMatchObject({ status: 'ok', tool: 'charge' });
  });

  test('an empty tool name is not a Gateway call (a direct invoke)', async () => {
    const { handler } = await setUp();
    await expect(handler({ amount: 1 }, gatewayContext('', 's'))).rejects.toMatchObject({ name: 'ToolUsageError' });
  });

  test.each([
    ['unknown', 't___nope', {}, 'ToolNotFound', false],
    ['not allowlisted', 't___hidden', {}, 'ToolNotFound', false],
    ['bad args', 't___charge', { amount: 'x' }, 'ToolUsageError', false],
    ['a tool that threw', 't___boom', {}, 'ToolFailed', true],
  ])('errors come back as error replies, never thrown: %s', async (_label, name, args, type, retryable) => {
    const { handler, published } = await setUp();
    const reply = (await handler(args, gatewayContext(name, 's-e'))) as any;
    expect(reply).toMatchObject({ status: 'error', tool: name.split('___')[1], error: { type, retryable } });
    expect(reply.run_id).toMatch(/^agc_/);
    expect(reply.call_id).toMatch(/^agc_/);
    expect(typeof reply.error.message).toBe('string');
    expect(published).toEqual([reply]);
  });

  test.each([
    ['a string', 'hello'],
    ['an array', [1, 2]],
    ['null', null],
    ['undefined', undefined],
  ])('an event that is not an object answers a ToolUsageError reply: %s', async (_label, event) => {
    const { handler, runs, published } = await setUp();
    const reply = (await handler(event, gatewayContext('t___charge', 's-x'))) as any;
    expect(reply).toMatchObject({ status: 'error', tool: 'charge', error: { type: 'ToolUsageError', retryable: false } });
    expect(reply.error.message).toMatch(/^A Gateway call's event must be the tool's args object, got: /);
    expect(published).toEqual([reply]);
    expect(runs).toEqual([]);
  });

  test('no time left: a retryable ToolTimeout reply', async () => {
    const { handler, runs } = await setUp();
    const reply = await handler({ amount: 1 }, gatewayContext('t___charge', 's', 'bedrockAgentCoreToolName', 500));
    expect(reply).toMatchObject({ status: 'error', error: { type: 'ToolTimeout', retryable: true } });
    expect(runs).toEqual([]);
  });

  test('other sources return kept replies unchanged (no replayed)', async () => {
    const { handler } = await setUp();
    const call = { tool: 'charge', args: { amount: 9 }, run_id: 'r', call_id: 'c' };
    await handler(call, lambdaContext(10_000));
    expect(await handler(call, lambdaContext(10_000))).not.toHaveProperty('replayed');
    const batch = await handler(sqsEvent(sqsRecord('m', call)), lambdaContext(10_000));
    expect(batch).toEqual({ batchItemFailures: [] });
  });
});

/**
 * Error messages and log lines name the parameter or path and what was expected, never the value
 * that arrived: a secret-looking value in a bad input, through every host adapter of the real
 * handler, appears in no reply, no error, no log line (stdout or stderr) and no reply-bus event.
 * (Names and ids the contract echoes, `tool` and the call's ids, are not values: they may be echoed.)
 * The same through the synthesized bundles: test/construct/gateway-bundle-hostile.test.ts and
 * bedrock-agent-bundle.test.ts.
 */
import * as z from 'zod';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import functionEvent from '../fixtures/events/bedrockAgentFunctionEvent.json';
import { bodyOf } from '../support/bedrock-agent';
import { captureLogs, eventBridgeEvent, gatewayContext, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

const SECRET = 'SECRET-4111-1111-1111-1111';
/** The same card number as a caller might type it, spaces and all (no tool name or id may hold it). */
const SPACED = 'SECRET 4111 1111 1111 1111';

let logs: ReturnType<typeof captureLogs>;
let stderr: string[];
let stderrSpy: jest.SpyInstance;
beforeEach(() => {
  logs = captureLogs();
  stderr = [];
  stderrSpy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  logs.restore();
  stderrSpy.mockRestore();
});

function setUp() {
  let runs = 0;
  const published: unknown[] = [];
  const replies: ReplyPublisher = { publish: async (reply, extras) => void published.push({ reply, extras }) };
  const charge = tool({
    name: 'charge',
    input: z.object({
      amount: z.number().int().max(100),
      currency: z.enum(['EUR', 'USD']).optional(),
      email: z.string().email().optional(),
      card: z.string().regex(/^\d{16}$/).optional(),
      note: z.string().max(5).optional(),
      kind: z.literal('order').optional(),
      paid: z.boolean().optional(),
      tags: z.array(z.number()).optional(),
    }),
    run: () => {
      runs++;
      return 'charged';
    },
  });
  const handler = toolHandler(new ToolExecutor({ tools: [charge], approvals: new MemoryApprovalStore() }), { replies });
  return { handler, runs: () => runs, published };
}

/** Args the schema refuses, each carrying the secret in a different check's way. */
const BAD_ARGS: Array<[string, Record<string, unknown>]> = [
  ['a wrong type', { amount: SECRET }],
  ['a value not in an enum', { amount: 1, currency: SECRET }],
  ['a bad format', { amount: 1, email: SECRET }],
  ['a pattern not matched', { amount: 1, card: SECRET }],
  ['a string too long', { amount: 1, note: SECRET }],
  ['a literal not matched', { amount: 1, kind: SECRET }],
  ['an array element of a wrong type', { amount: 1, tags: [SECRET] }],
];

/** Envelopes refused before any tool is looked at, each carrying the secret. */
const BAD_ENVELOPES: Array<[string, string]> = [
  ['a tool name the envelope refuses', JSON.stringify({ tool: SPACED, args: {} })],
  ['a run_id the envelope refuses', JSON.stringify({ tool: 'charge', args: { amount: 1 }, run_id: SPACED })],
  ['an approval_id the envelope refuses', JSON.stringify({ approval_id: SPACED })],
  ['args that are not an object', JSON.stringify({ tool: 'charge', args: SECRET })],
  ['a body cut short', `{"tool":"charge","args":{"card":"${SECRET}"`],
  ['a body that is not JSON', `card=${SECRET}`],
];


function bedrockCall(parameters: Array<{ name: string; type: string; value: string }>) {
  return { ...functionEvent, function: 'charge', parameters };
}

/** Nothing the handler answered, threw, logged or published holds the secret (in either spelling). */
function expectNoSecret(h: ReturnType<typeof setUp>, answered: unknown): void {
  const seen = [JSON.stringify(answered), ...logs.text(), ...stderr, JSON.stringify(h.published)].join('\n');
  expect(seen).not.toContain(SECRET);
  expect(seen).not.toContain(SPACED);
  // A part of it too; not '4111' alone, which a random UUID (a derived call id) may hold by chance.
  expect(seen).not.toMatch(/4111[- ]1111/);
  expect(h.runs()).toBe(0);
}

async function settled(answer: Promise<unknown>): Promise<unknown> {
  return answer.then(
    (returned) => ({ returned }),
    (error: Error) => ({ threw: { name: error.name, message: error.message, cause: String((error as { cause?: unknown }).cause) } }),
  );
}

describe('Bedrock Agents', () => {
  test.each([
    ['number', 'amount'],
    ['integer', 'amount'],
    ['boolean', 'paid'],
    ['array', 'tags'],
  ])('a %s parameter holding the secret: a REPROMPT naming the parameter, not its value', async (type, name) => {
    const h = setUp();
    const response = await h.handler(bedrockCall([{ name, type, value: SECRET }]), lambdaContext(10_000));
    expect((response as any).response.functionResponse.responseState).toBe('REPROMPT');
    expect(bodyOf(response).error.message).toContain(`\`${name}\``);
    expectNoSecret(h, response);
  });

  test.each(BAD_ARGS)('args the schema refuses (%s): a REPROMPT naming the path, not the value', async (_label, args) => {
    const h = setUp();
    const parameters = Object.entries(args).map(([name, value]) =>
      typeof value === 'number' ? { name, type: 'number', value: String(value) } : Array.isArray(value) ? { name, type: 'array', value: JSON.stringify(value) } : { name, type: 'string', value: String(value) },
    );
    const response = await h.handler(bedrockCall(parameters), lambdaContext(10_000));
    expect(bodyOf(response)).toMatchObject({ status: 'error', error: { type: 'ToolUsageError', message: expect.stringContaining('`args.') } });
    expectNoSecret(h, response);
  });
});

describe.each([
  ['with a session id', 'session-1'],
  ['without a session id', undefined],
])('AgentCore Gateway %s', (_label, sessionId) => {
  test.each(BAD_ARGS)('args the schema refuses (%s): an error reply naming the path, not the value', async (_what, args) => {
    const h = setUp();
    const reply = await h.handler(args, gatewayContext('billing___charge', sessionId));
    expect(reply).toMatchObject({ status: 'error', error: { type: 'ToolUsageError', message: expect.stringContaining('`args.') } });
    expectNoSecret(h, reply);
  });

  test('a resume_approval whose approval_id the envelope refuses names the key, not its value', async () => {
    const h = setUp();
    const reply = (await h.handler({ approval_id: 'apr_1', note: SECRET }, gatewayContext('billing___resume_approval', sessionId))) as any;
    expect(reply.error).toMatchObject({ type: 'ToolUsageError', message: expect.stringContaining('`note`') });
    expectNoSecret(h, reply);
  });
});

describe.each([
  ['an SQS body', (h: ReturnType<typeof setUp>, body: string) => h.handler(sqsEvent(sqsRecord('m-1', body)), lambdaContext(10_000))],
  [
    'an EventBridge detail',
    (h: ReturnType<typeof setUp>, body: string) => h.handler(eventBridgeEvent('ev-1', parsedOr(body)), lambdaContext(10_000)),
  ],
  ['a direct invoke', (h: ReturnType<typeof setUp>, body: string) => h.handler(parsedOr(body), lambdaContext(10_000))],
])('%s', (_host, send) => {
  test.each(BAD_ENVELOPES)('%s: refused, naming the key or position, not the value', async (_label, body) => {
    const h = setUp();
    expectNoSecret(h, await settled(send(h, body)));
    expect(logs.lines().filter((line) => line.message === 'tool call')).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ type: 'ToolUsageError' }) }),
    ]);
  });

  test.each(BAD_ARGS)('args the schema refuses (%s): naming the path, not the value', async (_label, args) => {
    const h = setUp();
    expectNoSecret(h, await settled(send(h, JSON.stringify({ tool: 'charge', args }))));
  });
});

/** The body as an already-parsed payload where it is JSON (EventBridge and direct invokes), else the text itself. */
function parsedOr(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

test('an event of a source the handler does not know is refused naming the field, not the value', async () => {
  const h = setUp();
  const answered = await settled(h.handler({ Records: [{ eventSource: SECRET }] }, lambdaContext(10_000)));
  expect(answered).toMatchObject({ threw: { name: 'ToolUsageError', message: expect.stringContaining('`Records[0].eventSource`') } });
  expectNoSecret(h, answered);
});

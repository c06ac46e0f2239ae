/**
 * Inputs are bounded before anything walks them: through every host adapter of the real handler, a
 * value nested 5,000 deep, or one over MAX_ENVELOPE_BYTES, is a typed refusal in its host's own
 * shape, naming the limit and logged like any refused call; never a RangeError, and the hosts that
 * must never throw (AgentCore Gateway, Bedrock Agents) do not, session or not. The same through the
 * synthesized bundles: test/construct/gateway-bundle-hostile.test.ts and bedrock-agent-bundle.test.ts.
 */
import * as z from 'zod';
import { MAX_ENVELOPE_BYTES, MemoryApprovalStore, tool, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import functionEvent from '../fixtures/events/bedrockAgentFunctionEvent.json';
import { bodyOf } from '../support/bedrock-agent';
import { captureLogs, eventBridgeEvent, gatewayContext, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

/** JSON text of arrays nested `depth` deep (built as text: JSON.stringify itself overflows on it). */
function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

const DEEP = nestedJson(5000);
const LARGE = JSON.stringify(['x'.repeat(MAX_ENVELOPE_BYTES + 1)]);
const TOO_DEEP = /^Invalid envelope: nested deeper than 64 levels \(the envelope is level 1, `args` level 2/;
const TOO_LARGE = new RegExp(`^Invalid envelope: \\d+ bytes is over the limit of ${MAX_ENVELOPE_BYTES} bytes`);

function setUp() {
  let runs = 0;
  const published: unknown[] = [];
  const replies: ReplyPublisher = { publish: async (reply) => void published.push(reply) };
  const keep = tool({
    name: 'keep',
    input: z.object({ data: z.unknown() }),
    run: () => {
      runs++;
      return 'kept';
    },
  });
  const executor = new ToolExecutor({ tools: [keep], approvals: new MemoryApprovalStore() });
  return {
    handler: toolHandler(executor, { replies }),
    /** SQS reports a refused record failed only where no reply bus carries the refusal. */
    withoutBus: toolHandler(executor, { replies: false }),
    runs: () => runs,
    published,
  };
}


/** A Bedrock Agents call of `keep` with its `data` as an `array` parameter holding `json`. */
function bedrockCall(json: string) {
  return { ...functionEvent, function: 'keep', parameters: [{ name: 'data', type: 'array', value: json }] };
}

/** The envelope calling `keep` with `data` = the JSON text `json`. */
const envelopeJson = (json: string) => `{"tool":"keep","args":{"data":${json}}}`;

type Handlers = ReturnType<typeof setUp>;

/** Each host with the input `json` as its callers send it; resolves to the refusal it answered. */
const HOSTS: Array<[string, (h: Handlers, json: string) => Promise<{ type: string; message: string }>]> = [
  [
    'Bedrock Agents (an array parameter): a REPROMPT response, not thrown',
    async ({ handler }, json) => {
      const response = (await handler(bedrockCall(json), lambdaContext(10_000))) as any;
      expect(response.response.functionResponse.responseState).toBe('REPROMPT');
      const reply = bodyOf(response);
      expect(reply).toMatchObject({ status: 'error', tool: 'keep' });
      return reply.error;
    },
  ],
  [
    'AgentCore Gateway with a session id: an error reply, not thrown',
    async ({ handler }, json) => {
      const reply = (await handler({ data: JSON.parse(json) }, gatewayContext('billing___keep', 'session-1'))) as any;
      expect(reply).toMatchObject({ status: 'error', tool: 'keep', run_id: expect.stringMatching(/^agc_/) });
      return reply.error;
    },
  ],
  [
    'AgentCore Gateway without a session id: an error reply, not thrown',
    async ({ handler }, json) => {
      const reply = (await handler({ data: JSON.parse(json) }, gatewayContext('billing___keep'))) as any;
      expect(reply).toMatchObject({ status: 'error', tool: 'keep' });
      return reply.error;
    },
  ],
  [
    'an SQS body: the record in batchItemFailures',
    async ({ withoutBus }, json) => {
      expect(await withoutBus(sqsEvent(sqsRecord('m-1', envelopeJson(json))), lambdaContext(10_000))).toEqual({
        batchItemFailures: [{ itemIdentifier: 'm-1' }],
      });
      const [line] = logs.lines().filter((l) => l.message === 'tool call');
      expect(line).toMatchObject({ message_id: 'm-1' });
      return line.error as { type: string; message: string };
    },
  ],
  [
    'an EventBridge detail: a thrown ToolUsageError',
    async ({ handler }, json) => thrownBy(handler(eventBridgeEvent('ev-1', JSON.parse(envelopeJson(json))), lambdaContext(10_000))),
  ],
  [
    'a direct invoke: a thrown ToolUsageError',
    async ({ handler }, json) => thrownBy(handler(JSON.parse(envelopeJson(json)), lambdaContext(10_000))),
  ],
];

async function thrownBy(answer: Promise<unknown>): Promise<{ type: string; message: string }> {
  const error = await answer.then(
    () => undefined,
    (thrown: unknown) => thrown as Error,
  );
  expect(error).toBeInstanceOf(Error);
  return { type: error!.name, message: error!.message };
}

describe.each(HOSTS)('%s', (_host, refusalOf) => {
  test.each([
    ['a value nested 5,000 deep', DEEP, TOO_DEEP],
    ['a value over MAX_ENVELOPE_BYTES', LARGE, TOO_LARGE],
  ])('%s is refused as a ToolUsageError naming the limit, logged, never run', async (_label, json, limit) => {
    const h = setUp();
    const error = await refusalOf(h, json);
    expect(error.type).toBe('ToolUsageError');
    expect(error.message).toMatch(limit);
    expect(h.runs()).toBe(0);
    // Logged like any refused call: one line naming the error.
    const lines = logs.lines().filter((line) => line.message === 'tool call');
    expect(lines).toEqual([expect.objectContaining({ error: expect.objectContaining({ type: 'ToolUsageError', message: error.message }) })]);
  });
});

describe('depth counts as the envelope does: the Gateway\'s and Bedrock\'s args sit at level 2', () => {
  // `data` holds arrays nested k deep: levels 3 to k + 2 of the envelope { tool, args: { data } }.
  test.each([
    [62, 'ok'],
    [63, 'error'],
  ])('data nested %i deep: %s, as a direct invoke of the same envelope', async (k, status) => {
    const { handler } = setUp();
    const json = nestedJson(k);
    const direct = await handler(JSON.parse(envelopeJson(json)), lambdaContext(10_000)).then(
      (reply: any) => reply.status,
      () => 'error',
    );
    const gateway = ((await handler({ data: JSON.parse(json) }, gatewayContext('billing___keep', 'session-1'))) as any).status;
    const bedrock = bodyOf(await handler(bedrockCall(json), lambdaContext(10_000))).status;
    expect([direct, gateway, bedrock]).toEqual([status, status, status]);
  });
});

test('a Bedrock event too deep to pass back is answered without its attributes, not thrown', async () => {
  const { handler } = setUp();
  const event = { ...bedrockCall('[1]'), sessionAttributes: JSON.parse(`{"a":${DEEP}}`) };
  const response = (await handler(event, lambdaContext(10_000))) as any;
  expect(response).not.toHaveProperty('sessionAttributes');
  expect(bodyOf(response).error).toMatchObject({ type: 'ToolUsageError', message: expect.stringMatching(TOO_DEEP) });
  expect(() => JSON.stringify(response)).not.toThrow();
});

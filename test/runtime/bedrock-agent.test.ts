/**
 * The Amazon Bedrock Agents adapter, in process: real sample events, from Powertools for
 * Python (`tests/events/bedrockAgentFunctionEvent.json`) and from Powertools TypeScript's
 * BedrockAgentFunctionResolver tests (the events its `createEvent` builds), copied into
 * test/fixtures/events/ (README there names the commits). The same through the synthesized bundle:
 * test/construct/bedrock-agent-bundle.test.ts.
 */
import { createHash } from 'node:crypto';
import { MemoryApprovalStore, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import { canonicalJson } from '../../lambda/json';
import * as fixture from '../fixtures/bedrock-tools';
import functionEvent from '../fixtures/events/bedrockAgentFunctionEvent.json';
import resolverEvents from '../fixtures/events/bedrock-agent-function-resolver-events.json';
import { bodyOf, callOf, expectSampleResponse } from '../support/bedrock-agent';
import { captureLogs, lambdaContext } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const events = resolverEvents as Record<string, any>;

function setUp() {
  const approvals = new MemoryApprovalStore();
  const published: unknown[] = [];
  const replies: ReplyPublisher = { publish: async (reply) => void published.push(reply) };
  const tools = Object.values(fixture).filter((value) => typeof value === 'object' && value !== null && 'run' in value) as any[];
  const handler = toolHandler(new ToolExecutor({ tools, approvals }), { replies });
  return { handler, approvals, published };
}

function b64sha(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

describe('a Bedrock Agents call (function details)', () => {
  test('the Powertools sample: Bedrock\'s response format, the reply\'s JSON as the TEXT body, attributes passed back', async () => {
    const { handler } = setUp();
    expectSampleResponse(await handler(functionEvent, lambdaContext(10_000)), functionEvent);
  });

  test('ids: run_id from the agent and session, call_id from the tool and its canonical args', async () => {
    const { handler } = setUp();
    const reply = bodyOf(await handler(functionEvent, lambdaContext(10_000)));
    expect(reply.run_id).toBe(`bra_${b64sha(canonicalJson(['1234abcd', '123456789123458']))}`);
    expect(reply.call_id).toBe(`bra_${b64sha(canonicalJson(['submitVacationRequest', { endDate: '2024-03-20', startDate: '2024-03-15' }]))}`);
  });

  test.each([
    ['overwrites tools with the same name and uses the latest definition', 12],
    ['correctly parses number parameters', 52],
    ['correctly parses integer parameters', 47],
    ['correctly parses boolean parameters', true],
    ['correctly parses string parameters', 'String: hello world'],
    ['correctly parses array parameters', 6],
  ])('parameters are converted by their declared types (Powertools sample "%s")', async (name, result) => {
    const { handler } = setUp();
    const response = (await handler(events[name], lambdaContext(10_000))) as any;
    expect(response.response.functionResponse).not.toHaveProperty('responseState');
    expect(bodyOf(response)).toMatchObject({ status: 'ok', result });
  });

  test('the fully structured sample: session and prompt attributes come back unchanged', async () => {
    const { handler } = setUp();
    const event = events['returns a fully structured BedrockAgentFunctionResponse'];
    const response = (await handler(event, lambdaContext(10_000))) as any;
    expect(response).toMatchObject({
      messageVersion: '1.0',
      response: { actionGroup: 'actionGroup', function: 'greeting' },
      sessionAttributes: { sessionAttr: '12345' },
      promptSessionAttributes: { promptAttr: 'promptAttr' },
    });
    expect(bodyOf(response)).toMatchObject({ status: 'ok', result: 'Hello, John!' });
  });

  test('a value that is not of its declared type is a ToolUsageError answered with REPROMPT, naming the parameter', async () => {
    const { handler, published } = setUp();
    const event = events['preserves the original string when a number parameter is not a valid number'];
    const response = (await handler(event, lambdaContext(10_000))) as any;
    expect(response.response).toMatchObject({ function: 'echo', functionResponse: { responseState: 'REPROMPT' } });
    const reply = bodyOf(response);
    expect(reply).toMatchObject({ status: 'error', tool: 'echo', error: { type: 'ToolUsageError', retryable: false } });
    expect(reply.error.message).toBe('Parameter `arg` is not a valid number.');
    expect(published).toEqual([reply]);
  });

  test.each([
    ['integer', '4.5', 'integer'],
    ['boolean', 'yes', 'boolean'],
    ['array', '[a, b]', 'array (a JSON array)'],
    ['array', '{"a":1}', 'array (a JSON array)'],
    ['number', '', 'number'],
  ])('a %s parameter holding %j is refused: not a valid %s (its value is not quoted)', async (type, value, what) => {
    const { handler } = setUp();
    const event = { ...events['correctly parses integer parameters'], parameters: [{ name: 'arg', type, value }] };
    const response = (await handler(event, lambdaContext(10_000))) as any;
    expect(response.response.functionResponse.responseState).toBe('REPROMPT');
    expect(bodyOf(response).error.message).toBe(`Parameter \`arg\` is not a valid ${what}.`);
  });

  test('args the tool\'s schema refuses are a REPROMPT too, naming the path', async () => {
    const { handler } = setUp();
    const event = { ...events['correctly parses integer parameters'], parameters: [{ name: 'arg', type: 'number', value: '2.5' }] };
    const reply = bodyOf(await handler(event, lambdaContext(10_000)));
    expect(reply).toMatchObject({ status: 'error', error: { type: 'ToolUsageError' } });
    expect(reply.error.message).toContain('`args.arg`');
  });

  test('an object-typed arg travels as a string parameter holding its JSON; a plain string stays a string', async () => {
    const { handler } = setUp();
    const event = callOf(functionEvent, 'book', { guest: '{"name":"Ada","nights":2}', note: '{"not":"parsed"}', kind: 'double' });
    const reply = bodyOf(await handler(event, lambdaContext(10_000)));
    expect(reply).toMatchObject({ status: 'ok', result: { booked: { guest: { name: 'Ada', nights: 2 }, note: '{"not":"parsed"}', kind: 'double' } } });
  });

  test('a parameter named __proto__ stays plain data: it cannot lend the args another arg', async () => {
    const { handler } = setUp();
    // A computed key: an own property named __proto__, as JSON.parse makes it from an event.
    const event = callOf(functionEvent, 'book', { ['__proto__']: '{"note":"injected"}', guest: '{"name":"Ada","nights":1}', kind: 'single' });
    const reply = bodyOf(await handler(event, lambdaContext(10_000)));
    expect(reply).toMatchObject({ status: 'ok' });
    expect(reply.result.booked).toEqual({ guest: { name: 'Ada', nights: 1 }, kind: 'single' });
  });

  test('other errors come back in the body without REPROMPT: an unknown function is ToolNotFound', async () => {
    const { handler } = setUp();
    const response = (await handler({ ...functionEvent, function: 'nope' }, lambdaContext(10_000))) as any;
    expect(response.response.functionResponse).not.toHaveProperty('responseState');
    expect(bodyOf(response)).toMatchObject({ status: 'error', tool: 'nope', error: { type: 'ToolNotFound' } });
  });

  test.each([
    ['parameters is not a list', { parameters: 'x' }, '`parameters[0]` needs a string name and value'],
    ['a parameter without a value', { parameters: [{ name: 'a', type: 'string' }] }, '`parameters[0]` needs a string name and value'],
    ['a function name the envelope refuses', { function: 'no spaces' }, '`tool` may hold only'],
  ])('nothing is thrown for a malformed event: %s (a REPROMPT naming it)', async (_label, change, message) => {
    const { handler } = setUp();
    const response = (await handler({ ...functionEvent, ...change }, lambdaContext(10_000))) as any;
    expect(response).toMatchObject({ messageVersion: '1.0', response: { functionResponse: { responseState: 'REPROMPT' } } });
    expect(bodyOf(response).error.message).toContain(message);
  });

  test('an event without agent or session still runs, with fresh ids', async () => {
    const { handler } = setUp();
    const event = { ...functionEvent, agent: null, sessionId: 7 };
    const [a, b] = [bodyOf(await handler(event, lambdaContext(10_000))), bodyOf(await handler(event, lambdaContext(10_000)))];
    expect(a).toMatchObject({ status: 'ok' });
    expect(a.run_id).not.toBe(b.run_id);
  });

  test('no time left: a retryable ToolTimeout in the body, not thrown', async () => {
    const { handler } = setUp();
    const response = (await handler(functionEvent, lambdaContext(500))) as any;
    expect(bodyOf(response)).toMatchObject({ status: 'error', error: { type: 'ToolTimeout', retryable: true } });
    expect(response.response.functionResponse).not.toHaveProperty('responseState');
  });

  test('a call that needs approval: pending, then, once approved and resumed, the same call in the session answers with the result', async () => {
    const { handler, approvals } = setUp();
    const call = callOf(functionEvent, 'refund', { orderId: 'o-1' });
    const pending = bodyOf(await handler(call, lambdaContext(10_000)));
    expect(pending).toMatchObject({ status: 'pending_approval', tool: 'refund', approval_id: expect.stringMatching(/^apr_/) });
    await approvals.decide(pending.approval_id, { approved: true, by: 'alice' });
    expect(await handler({ approval_id: pending.approval_id }, lambdaContext(10_000))).toMatchObject({ status: 'ok' });
    expect(bodyOf(await handler(call, lambdaContext(10_000)))).toMatchObject({
      status: 'already_done',
      approval_id: pending.approval_id,
      result: { refunded: 'o-1' },
    });
  });
});

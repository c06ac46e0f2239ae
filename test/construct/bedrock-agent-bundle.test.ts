/**
 * Amazon Bedrock Agents events through the REAL bundle: the construct bundles a tools
 * module, the bundle runs in a child node process as Lambda would, against dynalite, with the
 * approvals engine's bundle behind a local Lambda endpoint. The events are real samples, copied into
 * test/fixtures/events/ (README there): Powertools for Python's `bedrockAgentFunctionEvent.json` and
 * the events of Powertools TypeScript's BedrockAgentFunctionResolver tests. Nothing is thrown.
 */
import * as path from 'node:path';
import { MAX_ENVELOPE_BYTES } from '../../lambda';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import functionEvent from '../fixtures/events/bedrockAgentFunctionEvent.json';
import resolverEvents from '../fixtures/events/bedrock-agent-function-resolver-events.json';
import { bodyOf, callOf, expectSampleResponse } from '../support/bedrock-agent';
import type { Outcome } from '../support/bundle-child';
import { testDocumentClient } from '../support/dynamo';
import { startEventBridgeEndpoint, type EventBridgeEndpoint } from '../support/eventbridge-endpoint';
import { startGatewayBundle, type GatewayBundle } from '../support/gateway-bundle';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'bedrock-tools.ts');
const events = resolverEvents as Record<string, any>;

let bundle: GatewayBundle;
let store: DynamoApprovalStore;
let bus: EventBridgeEndpoint;

const invoke = (list: unknown[]) => bundle.invoke(list.map((event, i) => ({ event, requestId: `req-${i}-${Math.random()}` })));

beforeAll(async () => {
  bus = await startEventBridgeEndpoint();
  bundle = await startGatewayBundle(
    {
      entry: ENTRY,
      tools: ['submitVacationRequest', 'math', 'integer', 'number', 'echo', 'boolean', 'string', 'array', 'greeting', 'book', 'refund'],
    },
    { replyBusEndpoint: bus.endpoint },
  );
  store = new DynamoApprovalStore({ tableName: bundle.tableName, client: testDocumentClient(), owner: bundle.owner });
}, 120_000);

afterAll(async () => {
  await bundle?.host.close();
  await bus?.close();
});

/** Every outcome was returned (never thrown): the responses. */
function responses(outcomes: Outcome[]): any[] {
  return outcomes.map((outcome) => {
    if ('threw' in outcome) throw new Error(`a Bedrock Agents call threw: ${JSON.stringify(outcome.threw)}`);
    return outcome.returned;
  });
}

test('the Powertools sample: Bedrock\'s response format, the reply as the TEXT body, attributes passed back', async () => {
  const [response] = responses(await invoke([functionEvent]));
  expectSampleResponse(response, functionEvent);
});

test('parameters are converted by their declared types; a bad value is answered with REPROMPT; nothing is thrown', async () => {
  const names = [
    'overwrites tools with the same name and uses the latest definition',
    'correctly parses number parameters',
    'correctly parses integer parameters',
    'correctly parses boolean parameters',
    'correctly parses array parameters',
    'preserves the original string when a number parameter is not a valid number',
  ];
  const all = responses(await invoke(names.map((name) => events[name])));
  expect(all.slice(0, 5).map((r) => [r.response.functionResponse.responseState, bodyOf(r).result])).toEqual([
    [undefined, 12],
    [undefined, 52],
    [undefined, 47],
    [undefined, true],
    [undefined, 6],
  ]);
  const bad = all[5];
  expect(bad.response).toMatchObject({ actionGroup: 'myActionGroup', function: 'echo', functionResponse: { responseState: 'REPROMPT' } });
  expect(bodyOf(bad)).toMatchObject({ status: 'error', error: { type: 'ToolUsageError', message: 'Parameter `arg` is not a valid number.' } });
});

test('an object arg sent as JSON text reaches the tool as the object', async () => {
  const event = callOf(functionEvent, 'book', { guest: '{"name":"Ada","nights":2}', kind: 'double' });
  const [response] = responses(await invoke([event]));
  expect(bodyOf(response)).toMatchObject({ status: 'ok', result: { booked: { guest: { name: 'Ada', nights: 2 }, kind: 'double' } } });
  expect(bundle.runs()).toContain('book:Ada');
});

test('approval in a session: pending; once approved and resumed, the same call answers already_done with the result', async () => {
  const call = callOf({ ...functionEvent, sessionId: 'session-approval' }, 'refund', { orderId: 'o-br' });
  const [pendingResponse] = responses(await invoke([call]));
  const pending = bodyOf(pendingResponse);
  expect(pending).toMatchObject({ status: 'pending_approval', tool: 'refund', approval_id: expect.stringMatching(/^apr_/) });
  await store.decide(pending.approval_id, { approved: true, by: 'alice' });
  const [resumed, again] = await invoke([{ approval_id: pending.approval_id }, call]);
  expect(resumed).toMatchObject({ returned: { status: 'ok', result: { refunded: 'o-br' } } });
  expect(bodyOf(responses([again])[0])).toMatchObject({ status: 'already_done', approval_id: pending.approval_id, result: { refunded: 'o-br' } });
  expect(bundle.runs().filter((l) => l.startsWith('refund:'))).toEqual(['refund:o-br']);
});

describe('hostile calls: bounded before they are walked, values kept out, denials without the approver', () => {
  const SECRET = 'SECRET-4111-1111-1111-1111';
  const APPROVER = 'arn:aws:sts::123456789012:assumed-role/RefundApprovers/mallory.approver';
  const inSession = (event: object) => ({ ...event, sessionId: 'session-hostile' });

  test.each([
    ['an array parameter nested 5,000 deep', [{ name: 'arg', type: 'array', value: `${'['.repeat(5000)}${']'.repeat(5000)}` }], /nested deeper than 64 levels/],
    ['a parameter over MAX_ENVELOPE_BYTES', [{ name: 'arg', type: 'array', value: JSON.stringify(['x'.repeat(MAX_ENVELOPE_BYTES)]) }], /over the limit of 1048576 bytes/],
  ])('%s: a REPROMPT naming the limit, never thrown', async (_label, parameters, limit) => {
    const run = await bundle.run([{ event: inSession({ ...events['correctly parses array parameters'], parameters }), requestId: 'hostile-1' }]);
    const [response] = responses(run.outcomes);
    expect(response.response.functionResponse.responseState).toBe('REPROMPT');
    expect(bodyOf(response)).toMatchObject({ status: 'error', tool: 'array', error: { type: 'ToolUsageError', message: expect.stringMatching(limit) } });
    expect(run.stderr).not.toMatch(/RangeError|Maximum call stack/);
  });

  test.each([
    ['number', 'echo'],
    ['integer', 'integer'],
    ['boolean', 'boolean'],
    ['array', 'array'],
  ])('a secret in a %s parameter reaches no response, log line or reply-bus event', async (type, fn) => {
    bus.received.length = 0;
    const event = inSession({ ...functionEvent, function: fn, parameters: [{ name: 'arg', type, value: SECRET }] });
    const run = await bundle.run([{ event, requestId: 'secret-1' }]);
    const [response] = responses(run.outcomes);
    expect(response.response.functionResponse.responseState).toBe('REPROMPT');
    expect(bodyOf(response).error.message).toContain('`arg`');
    expect(bus.received).toHaveLength(1);
    const seen = [JSON.stringify(run.outcomes), run.stdout, run.stderr, JSON.stringify(bus.received)].join('\n');
    expect(seen).not.toContain(SECRET);
    // A part of it too; not '4111' alone, which a random UUID (a derived call id) may hold by chance.
    expect(seen).not.toMatch(/4111[- ]1111/);
  });

  test('a denied approval: the same call answers the reason, not the approver', async () => {
    const call = callOf({ ...functionEvent, sessionId: 'session-denied' }, 'refund', { orderId: 'o-denied' });
    const pending = bodyOf(responses(await invoke([call]))[0]);
    expect(pending).toMatchObject({ status: 'pending_approval', approval_id: expect.stringMatching(/^apr_/) });
    await store.decide(pending.approval_id, { approved: false, by: APPROVER, reason: 'order already refunded' });
    bus.received.length = 0;
    const run = await bundle.run([{ event: call, requestId: 'denied-1' }]);
    const denial = bodyOf(responses(run.outcomes)[0]);
    expect(denial).toMatchObject({ status: 'error', tool: 'refund', error: { type: 'ApprovalDenied' } });
    expect(denial.error.message).toBe(`Approval ${pending.approval_id} for tool refund was denied: order already refunded`);
    const seen = [JSON.stringify(run.outcomes), run.stdout, run.stderr, JSON.stringify(bus.received)].join('\n');
    expect(seen).not.toContain(APPROVER);
    expect(seen).not.toContain('mallory');
    expect(bundle.runs().filter((line) => line === 'refund:o-denied')).toEqual([]);
  });
});

/**
 * Amazon Bedrock Agents events through the REAL bundle (SPEC §15): the construct bundles a tools
 * module, the bundle runs in a child node process as Lambda would, against dynalite, with the
 * approvals engine's bundle behind a local Lambda endpoint. The events are real samples, copied into
 * test/fixtures/events/ (README there): Powertools for Python's `bedrockAgentFunctionEvent.json` and
 * the events of Powertools TypeScript's BedrockAgentFunctionResolver tests. Nothing is thrown.
 */
import * as path from 'node:path';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import functionEvent from '../fixtures/events/bedrockAgentFunctionEvent.json';
import resolverEvents from '../fixtures/events/bedrock-agent-function-resolver-events.json';
import { bodyOf, callOf, expectSampleResponse } from '../support/bedrock-agent';
import type { Outcome } from '../support/bundle-child';
import { testDocumentClient } from '../support/dynamo';
import { startGatewayBundle, type GatewayBundle } from '../support/gateway-bundle';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'bedrock-tools.ts');
const events = resolverEvents as Record<string, any>;

let bundle: GatewayBundle;
let store: DynamoApprovalStore;

const invoke = (list: unknown[]) => bundle.invoke(list.map((event, i) => ({ event, requestId: `req-${i}-${Math.random()}` })));

beforeAll(async () => {
  bundle = await startGatewayBundle({
    entry: ENTRY,
    tools: ['submitVacationRequest', 'math', 'integer', 'number', 'echo', 'boolean', 'string', 'array', 'greeting', 'book', 'refund'],
  });
  store = new DynamoApprovalStore({ tableName: bundle.tableName, client: testDocumentClient(), owner: bundle.owner });
}, 120_000);

afterAll(() => bundle?.host.close());

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
  expect(bodyOf(bad)).toMatchObject({ status: 'error', error: { type: 'ToolUsageError', message: 'Parameter `arg` is not a valid number, got: "not-a-number".' } });
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

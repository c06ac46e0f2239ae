/**
 * The AgentCore Gateway adapter through the REAL bundle: the construct bundles a tools module,
 * the bundle runs in a child node process (as Lambda would) with a Gateway-shaped context (the
 * args as the event, `bedrockAgentCoreToolName` and `bedrockAgentCoreSessionId` in
 * `clientContext.custom`), against dynalite. Tools append to RUNS_FILE, so runs are counted across
 * processes. The approval flow through Gateway: gateway-bundle-approval.test.ts.
 */
import { gatewayCall, returned, startGatewayBundle, type GatewayBundle } from '../support/gateway-bundle';

let gateway: GatewayBundle;

beforeAll(async () => {
  gateway = await startGatewayBundle();
}, 120_000);

afterAll(() => gateway?.host.close());

beforeEach(() => gateway.clearRuns());

const runs = () => gateway.runs();
const one = (step: Parameters<GatewayBundle['one']>[0]) => gateway.one(step);

test('the right tool runs, with the target prefix stripped', async () => {
  const reply = await one(gatewayCall('billing___charge', { amount: 3, currency: 'EUR' }, 'session-1'));
  expect(reply).toMatchObject({ status: 'ok', tool: 'charge', result: { charged: 3 } });
  expect(reply.run_id).toMatch(/^agc_/);
  expect(runs()).toEqual(['charge:3']);
});

test('an unknown or not-allowlisted name is a ToolNotFound error reply (returned, never thrown)', async () => {
  const outcomes = await gateway.invoke([gatewayCall('billing___nope', {}, 'session-2'), gatewayCall('billing___internal', {}, 'session-2')]);
  for (const [outcome, tool] of [
    [outcomes[0], 'nope'],
    [outcomes[1], 'internal'],
  ] as const) {
    expect(returned(outcome)).toMatchObject({ status: 'error', tool, error: { type: 'ToolNotFound', retryable: false } });
  }
  expect(runs()).toEqual([]);
});

test('identical calls in one session run a side-effecting tool once; the repeat is replayed', async () => {
  const args = { amount: 7, currency: 'USD', tags: ['a'] };
  const first = await one(gatewayCall('billing___charge', args, 'session-3'));
  const again = await one(gatewayCall('billing___charge', { tags: ['a'], currency: 'USD', amount: 7 }, 'session-3'));
  expect(first).toMatchObject({ status: 'ok', result: { charged: 7 } });
  expect(first).not.toHaveProperty('replayed');
  expect(again).toEqual({ ...first, replayed: true });
  expect(runs()).toEqual(['charge:7']);
});

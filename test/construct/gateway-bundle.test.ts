/**
 * The AgentCore Gateway adapter (§11) through the REAL bundle: the construct bundles a tools module,
 * the bundle runs in a child node process (as Lambda would) with a Gateway-shaped context (the
 * args as the event, `bedrockAgentCoreToolName` and `bedrockAgentCoreSessionId` in
 * `clientContext.custom`), against dynalite. Tools append to RUNS_FILE, so runs are counted across
 * processes. The approval flow through Gateway: gateway-bundle-approval.test.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTestTable } from '../support/dynamo';
import { hostApprovals, invokeBundle, type Invocation, type Outcome, sdkOnlyNodePath, synthesizeBundle } from '../support/bundle-child';
import type { LambdaHost } from '../support/lambda-host';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');

let bundle: string;
let env: Record<string, string>;
let nodePath: string;
let host: LambdaHost;
let runsFile: string;

beforeAll(async () => {
  const synthesized = synthesizeBundle({ entry: ENTRY, tools: ['charge', 'refund', 'lookup'] });
  bundle = synthesized.bundle;
  nodePath = sdkOnlyNodePath();
  const table = await createTestTable();
  runsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runs-')), 'runs.txt');
  const approvals = await hostApprovals(synthesized, table.tableName, nodePath);
  host = approvals.host;
  env = { ...approvals.handlerEnv, RUNS_FILE: runsFile };
}, 120_000);

afterAll(() => host?.close());

beforeEach(() => fs.writeFileSync(runsFile, ''));

const runs = () => fs.readFileSync(runsFile, 'utf8').split('\n').filter(Boolean);

function gatewayCall(toolName: string, args: unknown, sessionId: string, requestId = `req-${Math.random()}`): Invocation {
  return { event: args, requestId, custom: { bedrockAgentCoreToolName: toolName, bedrockAgentCoreSessionId: sessionId } };
}

async function one(step: Invocation): Promise<any> {
  const [outcome] = await invokeBundle(bundle, env, [step], nodePath);
  return returned(outcome);
}

function returned(outcome: Outcome): any {
  if ('threw' in outcome) throw new Error(`a Gateway call threw: ${JSON.stringify(outcome.threw)}`);
  return outcome.returned;
}

test('the right tool runs, with the target prefix stripped', async () => {
  const reply = await one(gatewayCall('billing___charge', { amount: 3, currency: 'EUR' }, 'session-1'));
  expect(reply).toMatchObject({ status: 'ok', tool: 'charge', result: { charged: 3 } });
  expect(reply.run_id).toMatch(/^agc_/);
  expect(runs()).toEqual(['charge:3']);
});

test('an unknown or not-allowlisted name is a ToolNotFound error reply (returned, never thrown)', async () => {
  const outcomes = await invokeBundle(
    bundle,
    env,
    [gatewayCall('billing___nope', {}, 'session-2'), gatewayCall('billing___internal', {}, 'session-2')],
    nodePath,
  );
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

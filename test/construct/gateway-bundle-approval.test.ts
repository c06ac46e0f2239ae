/**
 * A Gateway call that needs approval, through the REAL bundle (see gateway-bundle.test.ts): pending,
 * then decided (DynamoApprovalStore.decide, as the approvals API does) and resumed with
 * `{"approval_id": ...}` through the approvals engine's bundle, after which the same Gateway call
 * answers already_done with the result.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable } from '../support/dynamo';
import { hostApprovals, invokeBundle, type Invocation, type Outcome, sdkOnlyNodePath, synthesizeBundle } from '../support/bundle-child';
import type { LambdaHost } from '../support/lambda-host';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');

let bundle: string;
let env: Record<string, string>;
let nodePath: string;
let host: LambdaHost;
let runsFile: string;
let store: DynamoApprovalStore;

beforeAll(async () => {
  const synthesized = synthesizeBundle({ entry: ENTRY, tools: ['charge', 'refund', 'lookup'] });
  bundle = synthesized.bundle;
  nodePath = sdkOnlyNodePath();
  const table = await createTestTable();
  store = new DynamoApprovalStore({ tableName: table.tableName, client: table.client });
  runsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runs-')), 'runs.txt');
  fs.writeFileSync(runsFile, '');
  const approvals = await hostApprovals(synthesized, table.tableName, nodePath);
  host = approvals.host;
  env = { ...approvals.handlerEnv, RUNS_FILE: runsFile };
}, 120_000);

afterAll(() => host?.close());

const runs = () => fs.readFileSync(runsFile, 'utf8').split('\n').filter(Boolean);

function gatewayCall(toolName: string, args: unknown, sessionId: string): Invocation {
  return { event: args, requestId: `req-${Math.random()}`, custom: { bedrockAgentCoreToolName: toolName, bedrockAgentCoreSessionId: sessionId } };
}

async function one(step: Invocation): Promise<any> {
  const [outcome] = await invokeBundle(bundle, env, [step], nodePath);
  return returned(outcome);
}

function returned(outcome: Outcome): any {
  if ('threw' in outcome) throw new Error(`a call threw: ${JSON.stringify(outcome.threw)}`);
  return outcome.returned;
}

test('a call that needs approval is pending; once decided and resumed, the same call is already_done with the result', async () => {
  const call = gatewayCall('billing___refund', { orderId: 'o-gw' }, 'session-4');
  const pending = await one(call);
  expect(pending).toMatchObject({ status: 'pending_approval', tool: 'refund' });
  expect(runs()).toEqual([]);

  await store.decide(pending.approval_id, { approved: true, by: 'alice', reason: 'checked' });
  const [resumed] = await invokeBundle(bundle, env, [{ event: { approval_id: pending.approval_id }, requestId: 'resume-1' }], nodePath);
  expect(returned(resumed)).toMatchObject({ status: 'ok', approval_id: pending.approval_id, result: { refunded: 'o-gw' } });

  const again = await one(call);
  expect(again).toMatchObject({
    status: 'already_done',
    tool: 'refund',
    run_id: pending.run_id,
    call_id: pending.call_id,
    approval_id: pending.approval_id,
    result: { refunded: 'o-gw' },
  });
  expect(runs()).toEqual(['refund:o-gw']);
});

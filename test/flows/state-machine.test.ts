/**
 * A synthesized state machine that waits for a tool's result (`waitForResult`), run by
 * aws-local-stepfunctions (local/flow-run.ts, what `local --flow` runs) through the real handler
 * bundle, engine, approvals API, pipe and expirer of the local run (local/runtime.ts), the handler's
 * Step Functions client pointed at the run's endpoints, signing with the run's keys, which hand the
 * completions to the flow engines (local/flow-engines.ts). Approve: the flow gets the
 * reply. Deny: its Catch of ToolHandler.ApprovalDenied runs. Expire: ToolHandler.ApprovalExpired.
 * A second resume completes nothing. The task tokens appear in no line, event or audit record.
 */
import * as path from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ToolHandler } from '../../lib';
import { flowEngines, type FlowEngines } from '../../local/flow-engines';
import { runFlow, type FlowOutcome } from '../../local/flow-run';
import { LocalRun } from '../../local/runtime';
import { decide, localApprovalsClient, waitFor } from '../../local/scripting';
import { sendRaw, sendSigned } from '../local/raw-aws-request';
import { local, removeMade, synthesizeApp } from '../local/sample-assembly';

const ENTRY = path.join(__dirname, '..', '..', 'bin', 'tools.ts');

/** Stack `Flow`: the sample's tools and a refund flow that waits for the result and catches a denial and an expiry. */
export function buildFlowStack(stack: Stack): void {
  const tools = new ToolHandler(stack, 'Tools', { entry: ENTRY, tools: ['add', 'refund'], approvalTtl: Duration.minutes(15) });
  const refund = tools.waitForResult(stack, 'Refund', {
    tool: 'refund',
    args: sfn.TaskInput.fromObject({ orderId: sfn.JsonPath.stringAt('$.orderId') }),
    resultPath: '$.reply',
  });
  refund.addCatch(new sfn.Pass(stack, 'Denied', { result: sfn.Result.fromObject({ refunded: false, why: 'denied' }) }), {
    errors: ['ToolHandler.ApprovalDenied'],
  });
  refund.addCatch(new sfn.Pass(stack, 'Expired', { result: sfn.Result.fromObject({ refunded: false, why: 'expired' }) }), {
    errors: ['ToolHandler.ApprovalExpired'],
  });
  const machine = new sfn.StateMachine(stack, 'RefundFlow', { definitionBody: sfn.DefinitionBody.fromChainable(refund.next(new sfn.Succeed(stack, 'Done'))) });
  tools.allowTaskResponseFrom(machine);
  // A flow whose tool needs no approval: `local --flow AddFlow` ends by itself.
  const add = tools.waitForResult(stack, 'Add', { tool: 'add', args: sfn.TaskInput.fromJsonPathAt('$') });
  tools.allowTaskResponseFrom(new sfn.StateMachine(stack, 'AddFlow', { definitionBody: sfn.DefinitionBody.fromChainable(add) }));
  // A JSONata flow, which the local interpreter cannot run.
  const jsonata = tools.waitForResult(stack, 'AddJsonata', { tool: 'add', args: { a: '{% $states.input.a %}', b: 1 }, queryLanguage: sfn.QueryLanguage.JSONATA });
  const jsonataFlow = new sfn.StateMachine(stack, 'JsonataFlow', { queryLanguage: sfn.QueryLanguage.JSONATA, definitionBody: sfn.DefinitionBody.fromChainable(jsonata) });
  tools.allowTaskResponseFrom(jsonataFlow);
}

let engines: FlowEngines;
let run: LocalRun;
let assembly: string;
const printed: string[] = [];
const waitingTokens: string[] = [];

beforeAll(async () => {
  assembly = synthesizeApp((app) => buildFlowStack(new Stack(app, 'Flow')));
  engines = flowEngines();
  // The tokens the flows wait with, as a test may know them (an attacker would have to guess one).
  const waitForTask = engines.waitForTask;
  engines.waitForTask = (token) => {
    waitingTokens.push(token);
    return waitForTask(token);
  };
  run = await LocalRun.start({ assembly, print: () => undefined, expireEverySeconds: 0.3, flowEngines: engines });
}, 180_000);
afterAll(async () => {
  await run?.stop();
  removeMade();
});

function flow(orderId: string): Promise<FlowOutcome> {
  return runFlow(run, engines, { stateMachine: 'RefundFlow', input: { orderId } }, (line) => printed.push(line));
}

async function pendingFor(orderId: string): Promise<string> {
  const client = localApprovalsClient(run)!;
  const id = await waitFor(async () => (await client.listAll({ status: 'pending', pageSize: 50 })).find((r) => (r.args as any).orderId === orderId)?.approval_id, 20_000);
  if (!id) throw new Error(`no pending approval for ${orderId}`);
  return id;
}

test('approve: the flow waits, without polling, and gets the reply', async () => {
  const outcome = flow('o-1');
  const id = await pendingFor('o-1');
  await decide(localApprovalsClient(run)!, id, true, 'checked');
  expect(await outcome).toEqual({
    ok: true,
    output: { orderId: 'o-1', reply: expect.objectContaining({ status: 'ok', tool: 'refund', result: { refunded: 'o-1' }, approval_id: id }) },
  });
  // The pipe delivers at least once: a second resume answers already_done and completes nothing.
  const completions = engines.received.length;
  await run.send([{ approval_id: id }]);
  await run.settled();
  expect(engines.received).toHaveLength(completions);
}, 60_000);

test('deny: the Catch of ToolHandler.ApprovalDenied runs', async () => {
  const outcome = flow('o-2');
  const id = await pendingFor('o-2');
  await decide(localApprovalsClient(run)!, id, false, 'not eligible');
  expect(await outcome).toEqual({ ok: true, output: { refunded: false, why: 'denied' } });
}, 60_000);

test('expire: the expirer fails the task with ToolHandler.ApprovalExpired, which the flow catches', async () => {
  await run.restart('engine', { TOOL_HANDLER_APPROVAL_TTL_S: '1' });
  try {
    expect(await flow('o-3')).toEqual({ ok: true, output: { refunded: false, why: 'expired' } });
  } finally {
    await run.restart('engine', { TOOL_HANDLER_APPROVAL_TTL_S: String(15 * 60) });
  }
}, 60_000);

test("another process cannot complete a waiting flow through the run's endpoints, even with its real token: unsigned, or signed by made-up keys, the approver's or `local call`'s", async () => {
  const outcome = flow('o-forged');
  const id = await pendingFor('o-forged');
  const token = waitingTokens[waitingTokens.length - 1];
  const completions = engines.received.length;
  const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AWSStepFunctions.SendTaskSuccess' };
  const body = JSON.stringify({ taskToken: token, output: JSON.stringify({ status: 'ok', tool: 'refund', result: { refunded: 'o-forged' } }) });
  expect((await sendRaw({ origin: run.awsEndpointUrl, path: '/', headers, body })).status).toBe(403);
  const madeUp = { accessKeyId: 'AKIAMADEUP0000000000', secretAccessKey: 'made-up-secret' };
  for (const keys of [madeUp, run.approver, run.caller]) {
    const reply = await sendSigned({ origin: run.awsEndpointUrl, path: '/', headers, body, keys, service: 'states', region: run.region });
    expect(reply.status).toBe(403);
  }
  expect(engines.received).toHaveLength(completions);
  // The flow still waits for its real outcome.
  await decide(localApprovalsClient(run)!, id, false, 'not eligible');
  expect(await outcome).toEqual({ ok: true, output: { refunded: false, why: 'denied' } });
}, 60_000);

test('every completion went to its own token once, and no token appears in any line, event, audit record or API record', async () => {
  const tokens = engines.received.map((c) => c.id);
  expect(tokens.length).toBeGreaterThanOrEqual(3);
  expect(new Set(tokens).size).toBe(tokens.length);
  const records = await localApprovalsClient(run)!.listAll({ pageSize: 50 });
  expect(records.length).toBeGreaterThanOrEqual(3);
  const everything = [JSON.stringify(run.lines), JSON.stringify(run.events), ...run.auditLines, ...printed, JSON.stringify(records)].join('\n');
  for (const token of tokens) expect(everything).not.toContain(token);
  expect(everything).toContain('"hidden":true');
});

describe('cdk-tool-handler local --flow', () => {
  test('runs the state machine to its end against the local handler, prints how it went, and exits 0', async () => {
    const result = await local(['local', '--assembly', assembly, '--flow', 'AddFlow', '--input', '{"a":2,"b":3}']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('flow: Add sends add and waits for its result');
    expect(result.stdout).toMatch(/flow \S+: succeeded: \{"status":"ok","tool":"add",.*"result":5\}/);
    expect(`${result.stdout}${result.stderr}`).not.toContain('local-token-');
  }, 120_000);

  test('--json ends with the flow\'s outcome as one JSON line', async () => {
    const result = await local(['local', '--assembly', assembly, '--flow', 'AddFlow', '--input', '{"a":1,"b":1}', '--json']);
    expect(result.code).toBe(0);
    const last = JSON.parse(result.stdout.trim().split('\n').pop()!);
    expect(last).toMatchObject({ type: 'flow', ok: true, output: { status: 'ok', result: 2 } });
  }, 120_000);

  test('a state machine the stack does not have is an error that names the ones it has', async () => {
    const result = await local(['local', '--assembly', assembly, '--flow', 'Nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--flow Nope: the stack has no such state machine; its state machines: .*AddFlow/);
  }, 120_000);

  test('a JSONata state machine is an error that says the local interpreter does not evaluate JSONata', async () => {
    const result = await local(['local', '--assembly', assembly, '--flow', 'JsonataFlow', '--input', '{"a":2}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--flow JsonataFlow: the state machine uses JSONata, which the local interpreter \(aws-local-stepfunctions\) does not evaluate/);
  }, 120_000);

  test.each([
    [['--input', '{}'], /--input .* needs --flow/],
    [['--flow', 'AddFlow', '--input', '{oops'], /--input must be JSON/],
    [['--flow', 'AddFlow', '--mcp'], /--flow runs one state machine: not with/],
  ])('bad usage %j exits 2 and says why', async (args, message) => {
    const result = await local(['local', '--assembly', assembly, ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

/**
 * Owners are a boundary, through the REAL bundles: two ToolHandlers of one synthesized stack
 * share one approvals table (B is given A's), and each handler's bundle, its engine's and its API's
 * run in processes of their own with the environment the template gives them, against dynalite.
 * Each attack here succeeded on the earlier design (owner-free keys, a Scan for lists, an API that
 * never checked the owner): A's approver listed and decided B's approvals, A's code got B's records
 * back from A's engine, and the same run and call ids in both handlers met in one approval.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ENV } from '../../lambda/construct-contract';
import { ToolHandler } from '../../lib';
import { invokeBundle, sdkOnlyNodePath, synthesizedFunction, type SynthesizedFunction } from '../support/bundle-child';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { functionUrlEvent } from '../support/function-url-event';
import { startLambdaHost, type LambdaHost } from '../support/lambda-host';
import { LOCAL_AWS_ENV } from '../support/local-aws';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');

interface Side {
  readonly owner: string;
  readonly handler: SynthesizedFunction;
  /** The handler's environment, pointed at the local table and its own engine. */
  readonly env: Record<string, string>;
}

let host: LambdaHost;
let lambda: LambdaClient;
let nodePath: string;
let runsFile: string;
const sides: Record<'a' | 'b', Side> = {} as never;

beforeAll(async () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-'));
  const app = new App({ outdir });
  const stack = new Stack(app, 'Shared', { env: { account: '123456789012', region: 'us-east-1' } });
  const tools = ['charge', 'refund'];
  const a = new ToolHandler(stack, 'A', { entry: ENTRY, tools });
  const b = new ToolHandler(stack, 'B', { entry: ENTRY, tools, approvalsTable: a.approvalsTable });
  const template = Template.fromStack(stack);

  nodePath = sdkOnlyNodePath();
  const table = await createTestTable();
  runsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runs-')), 'runs.txt');
  fs.writeFileSync(runsFile, '');
  const local = { ...LOCAL_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(), [ENV.approvalsTable]: table.tableName };
  const fn = (handler: ToolHandler, part: 'approvalsEngine' | 'approvalsApi') => {
    const synthesized = synthesizedFunction(template, outdir, handler[part]);
    return { bundle: synthesized.bundle, env: { ...synthesized.env, ...local } };
  };
  host = await startLambdaHost(
    { 'engine-a': fn(a, 'approvalsEngine'), 'api-a': fn(a, 'approvalsApi'), 'engine-b': fn(b, 'approvalsEngine'), 'api-b': fn(b, 'approvalsApi') },
    nodePath,
  );
  lambda = new LambdaClient({ ...localClient(), endpoint: host.endpoint });
  for (const [name, handler] of [['a', a], ['b', b]] as const) {
    const synthesized = synthesizedFunction(template, outdir, handler.lambdaFunction);
    sides[name] = {
      owner: handler.owner,
      handler: synthesized,
      env: {
        ...synthesized.env,
        [ENV.approvalsTable]: table.tableName,
        [ENV.approvalsEngine]: `engine-${name}`,
        AWS_ENDPOINT_URL_LAMBDA: host.endpoint,
        RUNS_FILE: runsFile,
      },
    };
  }
}, 120_000);

afterAll(() => host?.close());

function localClient() {
  return { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
}

/** One direct invoke of a handler's bundle (a fresh process); a throw comes back as `{ threw }`. */
async function handler(side: 'a' | 'b', event: unknown, requestId = `req-${Math.random()}`): Promise<any> {
  const [outcome] = await invokeBundle(sides[side].handler.bundle, sides[side].env, [{ event, requestId }], nodePath);
  return 'returned' in outcome ? outcome.returned : outcome;
}

/** A request to a handler's approvals API, as its function URL delivers it (an IAM-signed approver). */
async function api(side: 'a' | 'b', method: string, rawPath: string, options: Parameters<typeof functionUrlEvent>[2] = {}) {
  const output = await lambda.send(
    new InvokeCommand({ FunctionName: `api-${side}`, Payload: Buffer.from(JSON.stringify(functionUrlEvent(method, rawPath, options))) }),
  );
  const result = JSON.parse(Buffer.from(output.Payload!).toString('utf8'));
  return { status: result.statusCode as number, body: JSON.parse(result.body) };
}

async function engine(side: 'a' | 'b', request: unknown): Promise<any> {
  const output = await lambda.send(new InvokeCommand({ FunctionName: `engine-${side}`, Payload: Buffer.from(JSON.stringify(request)) }));
  return JSON.parse(Buffer.from(output.Payload!).toString('utf8'));
}

const runs = () => fs.readFileSync(runsFile, 'utf8').split('\n').filter(Boolean);

test('the two handlers have distinct owners, and every function of each carries its own', () => {
  expect(sides.a.owner).not.toBe(sides.b.owner);
  expect(sides.a.env[ENV.owner]).toBe(sides.a.owner);
  expect(sides.b.env[ENV.owner]).toBe(sides.b.owner);
});

test("A's approver cannot list, read or decide B's approval; B's own approver can, and B's tool runs B's args", async () => {
  const pending = await handler('b', { tool: 'refund', args: { orderId: 'b-1' }, run_id: 'run-b', call_id: 'call-b' });
  expect(pending).toMatchObject({ status: 'pending_approval' });
  const id = pending.approval_id;

  for (const query of [{}, { status: 'pending' }] as Array<Record<string, string>>) {
    const listed = await api('a', 'GET', '/approvals', { query });
    expect(listed.status).toBe(200);
    expect(listed.body.approvals.map((r: { approval_id: string }) => r.approval_id)).not.toContain(id);
  }
  expect(await api('a', 'GET', `/approvals/${id}`)).toMatchObject({ status: 404, body: { error: { type: 'not_found' } } });
  const shown = await api('b', 'GET', `/approvals/${id}`);
  expect(shown).toMatchObject({ status: 200, body: { args: { orderId: 'b-1' } } });
  const decision = { approved: true, fingerprint: shown.body.fingerprint };
  expect(await api('a', 'POST', `/approvals/${id}/decision`, { body: decision })).toMatchObject({ status: 404 });
  expect((await api('b', 'GET', `/approvals/${id}`)).body.status).toBe('pending');

  expect(await api('b', 'POST', `/approvals/${id}/decision`, { body: decision })).toMatchObject({ status: 200, body: { status: 'approved' } });
  // A resume of B's id through A's handler finds nothing of A's (and says nothing of B's).
  expect(await handler('a', { approval_id: id })).toMatchObject({ threw: { name: 'ApprovalNotFound' } });
  expect(await handler('b', { approval_id: id })).toMatchObject({ status: 'ok', result: { refunded: 'b-1' } });
  expect(runs().filter((line) => line === 'refund:b-1')).toHaveLength(1);
});

test('the same run and call ids in both handlers: two approvals with equal ids, each deciding and running its own args', async () => {
  const call = (orderId: string) => ({ tool: 'refund', args: { orderId }, run_id: 'run-same', call_id: 'call-same' });
  const inA = await handler('a', call('from-a'));
  const inB = await handler('b', call('from-b'));
  expect(inA).toMatchObject({ status: 'pending_approval' });
  expect(inB).toMatchObject({ status: 'pending_approval', approval_id: inA.approval_id });

  const inAShown = await api('a', 'GET', `/approvals/${inA.approval_id}`);
  const inBShown = await api('b', 'GET', `/approvals/${inB.approval_id}`);
  expect(inAShown.body.args).toEqual({ orderId: 'from-a' });
  expect(inBShown.body.args).toEqual({ orderId: 'from-b' });

  await api('b', 'POST', `/approvals/${inB.approval_id}/decision`, { body: { approved: true, fingerprint: inBShown.body.fingerprint } });
  expect(await handler('b', { approval_id: inB.approval_id })).toMatchObject({ status: 'ok', result: { refunded: 'from-b' } });
  // A's approval with the same id is A's, still undecided.
  expect(await handler('a', { approval_id: inA.approval_id })).toMatchObject({ threw: { name: 'ToolUsageError', message: expect.stringMatching(/not decided yet/) } });
  expect(runs()).not.toContain('refund:from-a');
});

test("A's engine: a claim of B's approved approval (allowlist or `tools: []`) and a create with B's ids answer nothing of B's", async () => {
  const pending = await handler('b', { tool: 'refund', args: { orderId: 'b-2' }, run_id: 'run-e', call_id: 'call-e' });
  const shown = await api('b', 'GET', `/approvals/${pending.approval_id}`);
  await api('b', 'POST', `/approvals/${pending.approval_id}/decision`, { body: { approved: true, fingerprint: shown.body.fingerprint } });

  for (const tools of [undefined, [], ['refund']]) {
    const answer = await engine('a', { op: 'claim', approval_id: pending.approval_id, token: 'stolen', until: Date.now() + 60_000, ...(tools ? { tools } : {}) });
    expect(answer).toEqual({ ok: true, claimed: false });
  }
  const created = await engine('a', { op: 'create', tool: 'refund', args: { orderId: 'forged' }, run_id: 'run-e', call_id: 'call-e' });
  expect(created).toMatchObject({ ok: true, created: true, record: { args: { orderId: 'forged' }, status: 'pending' } });
  expect(JSON.stringify(created)).not.toContain('b-2');
  // B's approval is untouched: B's resume runs it, with B's args.
  expect(await handler('b', { approval_id: pending.approval_id })).toMatchObject({ status: 'ok', result: { refunded: 'b-2' } });
});

test("calls with the same ids: each handler keeps its own reply; A's code cannot answer B's redelivery", async () => {
  const call = (amount: number) => ({ tool: 'charge', args: { amount, currency: 'EUR' }, run_id: 'run-c', call_id: 'call-c' });
  expect(await handler('b', call(7))).toMatchObject({ status: 'ok', result: { charged: 7 } });
  // A, with the same ids and other args, neither gets B's kept reply nor a mismatch: it is its own call.
  expect(await handler('a', call(9))).toMatchObject({ status: 'ok', result: { charged: 9 } });
  expect(await handler('b', call(7))).toMatchObject({ status: 'ok', result: { charged: 7 } });
  expect(runs().filter((line) => line.startsWith('charge:'))).toEqual(['charge:7', 'charge:9']);
});

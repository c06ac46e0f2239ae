import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { SampleStack } from '../../bin/sample-stack';
import { ENV as VARIABLES } from '../../lambda/construct-contract';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { eventBridgeEvent, sqsEvent, sqsRecord } from '../support/events';
import { APPROVER_ARN, functionUrlEvent } from '../support/function-url-event';
import { sdkOnlyNodePath, synthesizedFunction } from '../support/bundle-child';
import { LOCAL_AWS_ENV } from '../support/local-aws';
import { listenOnLoopback } from '../support/loopback';
import { startLambdaHost, type LambdaHost } from '../support/lambda-host';
import { ENV } from './helpers';

/**
 * The real bundle: synthesize the sample stack with bundling, take the asset's index.js and run it in
 * a child `node` process (as Lambda would: the SDK from the runtime, here a NODE_PATH holding only the
 * repository's `@aws-sdk/*`), with the environment the construct set, against dynalite. The bundle,
 * the child's script and its working directory are all outside the repository, so node's lookup of
 * parent `node_modules` cannot find the repository's other packages: a dependency the bundle left
 * out (zod, say) fails to load. This proves the bundle holds everything it needs and that the
 * construct's environment is what the runtime reads.
 */

const REPO = fs.realpathSync(path.join(__dirname, '..', '..'));
const run = promisify(execFile);

/** Whether `p` is outside the repository (so node's parent-directory lookup cannot reach its node_modules). */
function outsideRepo(p: string): boolean {
  const relative = path.relative(REPO, fs.realpathSync(p));
  return relative.startsWith('..') || path.isAbsolute(relative);
}

let nodePath: string;
let bundle: string;
/** The approvals API's bundle, which does decide, list and expire. */
let apiBundle: string;
/** The approvals engine's bundle, which creates, claims and completes approvals in the table. */
let engineBundle: string;
let variables: Record<string, string>;
let tableName: string;
let store: DynamoApprovalStore;
let host: LambdaHost;

beforeAll(async () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-'));
  const app = new App({ outdir });
  const stack = new SampleStack(app, 'Sample', { env: ENV });
  const template = Template.fromStack(stack);
  const handlerFunction = synthesizedFunction(template, outdir, stack.tools.lambdaFunction);
  const engine = synthesizedFunction(template, outdir, stack.tools.approvalsEngine);
  const api = synthesizedFunction(template, outdir, stack.tools.approvalsApi);
  bundle = handlerFunction.bundle;
  apiBundle = api.bundle;
  engineBundle = engine.bundle;
  nodePath = sdkOnlyNodePath();

  const table = await createTestTable();
  tableName = table.tableName;
  store = new DynamoApprovalStore({ tableName, client: table.client, owner: handlerFunction.env[VARIABLES.owner] });
  const local = { ...LOCAL_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(), [VARIABLES.approvalsTable]: tableName };
  host = await startLambdaHost(
    { engine: { bundle: engine.bundle, env: { ...engine.env, ...local } }, api: { bundle: api.bundle, env: { ...api.env, ...local } } },
    nodePath,
  );
  variables = {
    ...handlerFunction.env,
    [VARIABLES.approvalsTable]: tableName,
    [VARIABLES.approvalsEngine]: 'engine',
    AWS_ENDPOINT_URL_LAMBDA: host.endpoint,
  };
}, 60_000);

afterAll(() => host?.close());

/** Runs `code` as a script in a fresh Node process, in a directory of its own outside the repository. */
async function runScript(code: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoke-'));
  const script = path.join(dir, 'invoke.js');
  fs.writeFileSync(script, code);
  await run(process.execPath, [script], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      NODE_PATH: nodePath,
      ...variables,
      ...LOCAL_AWS_ENV,
      AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(),
    },
    timeout: 30_000,
  });
  return dir;
}

/** Runs `steps` through the bundled handler in a fresh Node process; returns each outcome. */
async function invoke(steps: Array<{ event: unknown; requestId: string }>): Promise<any[]> {
  const results = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'results-')), 'results.json');
  await runScript(
    `
const fs = require('node:fs');
const { handler } = require(${JSON.stringify(bundle)});
const steps = ${JSON.stringify(steps)};
function context(awsRequestId) {
  const end = Date.now() + 30000;
  return { awsRequestId, functionName: 'tools', getRemainingTimeInMillis: () => end - Date.now() };
}
(async () => {
  const out = [];
  for (const { event, requestId } of steps) {
    try {
      out.push({ returned: await handler(event, context(requestId)) });
    } catch (error) {
      out.push({ threw: { name: error.name, message: error.message, retryable: error.retryable } });
    }
  }
  fs.writeFileSync(${JSON.stringify(results)}, JSON.stringify(out));
})();
`,
  );
  return JSON.parse(fs.readFileSync(results, 'utf8'));
}

/** Runs all `steps` at once through the bundled handler in one fresh Node process. */
async function invokeConcurrently(steps: Array<{ event: unknown; requestId: string }>): Promise<any[]> {
  const results = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'results-')), 'results.json');
  await runScript(
    `
const fs = require('node:fs');
const { handler } = require(${JSON.stringify(bundle)});
const steps = ${JSON.stringify(steps)};
const end = Date.now() + 30000;
Promise.all(steps.map(({ event, requestId }) =>
  handler(event, { awsRequestId: requestId, functionName: 'tools', getRemainingTimeInMillis: () => end - Date.now() })
    .then((returned) => ({ returned }), (error) => ({ threw: { name: error.name, message: error.message, retryable: error.retryable } })),
)).then((out) => fs.writeFileSync(${JSON.stringify(results)}, JSON.stringify(out)));
`,
  );
  return JSON.parse(fs.readFileSync(results, 'utf8'));
}

describe('the child process', () => {
  test('runs outside the repository: the bundle, its working directory and NODE_PATH', async () => {
    const dir = await runScript('');
    for (const p of [bundle, dir, nodePath]) expect({ p, outside: outsideRepo(p) }).toEqual({ p, outside: true });
  });

  test("resolves @aws-sdk/* from the bundle's directory, and nothing else of the repository's node_modules", async () => {
    const dir = await runScript(`
const { createRequire } = require('node:module');
const fromBundle = createRequire(${JSON.stringify(bundle)});
const found = (name) => { try { fromBundle.resolve(name); return true; } catch (error) { return error.code; } };
require('node:fs').writeFileSync('resolved.json', JSON.stringify({
  sdk: found('@aws-sdk/lib-dynamodb'),
  zod: found('zod'),
  cdk: found('aws-cdk-lib'),
}));
`);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'resolved.json'), 'utf8'))).toEqual({
      sdk: true,
      zod: 'MODULE_NOT_FOUND',
      cdk: 'MODULE_NOT_FOUND',
    });
  });
});

describe('the asset', () => {
  test('is one minified index.js with a source map, leaving @aws-sdk/* to the Lambda runtime', () => {
    const code = fs.readFileSync(bundle, 'utf8');
    expect(fs.existsSync(`${bundle}.map`)).toBe(true);
    const lines = code.split('\n');
    expect(code.length / lines.length).toBeGreaterThan(1000); // minified: long lines
    expect(code).toMatch(/require\("@aws-sdk\/lib-dynamodb"\)/);
    expect(code).not.toMatch(/class DynamoDBClient\b/);
    process.stdout.write(`bundled asset: ${fs.statSync(bundle).size} bytes (index.js, minified)\n`);
  });

  test('without resultOffload, carries none of the offload code (the S3 client, the presigner)', () => {
    const code = fs.readFileSync(bundle, 'utf8');
    expect(code).not.toContain('@aws-sdk/client-s3');
    expect(code).not.toContain('@aws-sdk/s3-request-presigner');
    expect(code).toContain('@aws-sdk/client-sqs'); // the marker means something: rate limits are in every bundle
  });

  test("carries the handler's side of the table only: nothing that decides, lists or expires approvals", () => {
    const code = fs.readFileSync(bundle, 'utf8');
    const markers = { deciding: "A decision's by and reason", listing: 'ScanIndexForward', expiring: '"expire"' };
    // Each marker is in the approvals API's bundle, so its absence here means something.
    const api = fs.readFileSync(apiBundle, 'utf8');
    for (const [what, marker] of Object.entries(markers)) {
      expect({ what, inTheApi: api.includes(marker), inTheHandler: code.includes(marker) }).toEqual({ what, inTheApi: true, inTheHandler: false });
    }
  });

  test('writes no approval item itself: creating, claiming and completing approvals are the engine\'s (the construct folds that code away)', () => {
    const code = fs.readFileSync(bundle, 'utf8');
    const engineCode = fs.readFileSync(engineBundle, 'utf8');
    const markers = { creating: "The approval's args are too large for an approval item", completing: 'The result was too large to keep in the approval item' };
    for (const [what, marker] of Object.entries(markers)) {
      expect({ what, inTheEngine: engineCode.includes(marker), inTheHandler: code.includes(marker) }).toEqual({ what, inTheEngine: true, inTheHandler: false });
    }
  });

  test('gets the construct environment', () => {
    expect(variables).toMatchObject({
      [VARIABLES.tools]: 'add,refund',
      [VARIABLES.timeoutSeconds]: '30',
      [VARIABLES.marginSeconds]: '2',
      [VARIABLES.approvalTtlSeconds]: '604800',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });
});

describe('events through the bundle', () => {
  test('an SQS batch: partial batch response lists only the failed record', async () => {
    const arn = 'arn:aws:sqs:us-east-1:123456789012:ToolHandlerSample-Queue';
    const [outcome] = await invoke([
      {
        requestId: 'sqs-1',
        event: sqsEvent(
          sqsRecord('m1', { tool: 'add', args: { a: 1, b: 2 }, run_id: 'r1', call_id: 'c1' }, { arn }),
          sqsRecord('m2', { tool: 'not_a_tool', args: {} }, { arn }),
          sqsRecord('m3', 'not json', { arn }),
          sqsRecord('m4', { tool: 'refund', args: { orderId: 'o-sqs' } }, { arn }),
        ),
      },
    ]);
    expect(outcome.returned.batchItemFailures.map((f: any) => f.itemIdentifier).sort()).toEqual(['m2', 'm3']);
  });

  test('an EventBridge event: the reply is returned', async () => {
    const [outcome] = await invoke([
      { requestId: 'eb-1', event: eventBridgeEvent('evt-1', { tool: 'add', args: { a: 2, b: 3 } }, 'sample.agent') },
    ]);
    expect(outcome.returned).toMatchObject({ status: 'ok', tool: 'add', result: 5 });
  });

  test('a direct invoke: ok, errors thrown with their class name', async () => {
    const outcomes = await invoke([
      { requestId: 'd-1', event: { tool: 'add', args: { a: 20, b: 22 }, run_id: 'run', call_id: 'call' } },
      { requestId: 'd-2', event: { tool: 'add', args: { a: 'x', b: 1 } } },
      { requestId: 'd-3', event: { tool: 'delete_everything', args: {} } },
    ]);
    expect(outcomes[0].returned).toEqual({ status: 'ok', tool: 'add', run_id: 'run', call_id: 'call', result: 42 });
    expect(outcomes[1].threw).toMatchObject({ name: 'ToolUsageError', retryable: false });
    expect(outcomes[2].threw).toMatchObject({ name: 'ToolNotFound', retryable: false });
  });

  test('an approval: pending, decided through the API bundle, resumed once through the engine bundle, then already done', async () => {
    const [pending] = await invoke([{ requestId: 'a-1', event: { tool: 'refund', args: { orderId: 'o-42' } } }]);
    expect(pending.returned).toMatchObject({ status: 'pending_approval', tool: 'refund' });
    const approvalId = pending.returned.approval_id as string;
    expect(host.invocations.get('engine')).toContainEqual(expect.objectContaining({ op: 'create', tool: 'refund' }));

    const shown = await invokeApi(functionUrlEvent('GET', `/approvals/${approvalId}`));
    expect(shown).toMatchObject({ statusCode: 200 });
    const record = JSON.parse(shown.body);
    expect(record).toMatchObject({ approval_id: approvalId, tool: 'refund', args: { orderId: 'o-42' }, status: 'pending' });
    const decided = await invokeApi(
      functionUrlEvent('POST', `/approvals/${approvalId}/decision`, { body: { approved: true, reason: 'checked', fingerprint: record.fingerprint } }),
    );
    expect(JSON.parse(decided.body)).toMatchObject({ status: 'approved', decided_by: APPROVER_ARN, reason: 'checked' });

    const before = engineOps();
    const [resumed, again] = await invoke([
      { requestId: 'a-2', event: { approval_id: approvalId } },
      { requestId: 'a-3', event: { approval_id: approvalId } },
    ]);
    expect(resumed.returned).toMatchObject({ status: 'ok', tool: 'refund', approval_id: approvalId, result: { refunded: 'o-42' } });
    expect(again.returned).toMatchObject({ status: 'already_done', approval_id: approvalId, result: { refunded: 'o-42' } });
    // A resume: claim + complete; one that cannot run: one refused claim.
    expect(engineOps().slice(before.length)).toEqual(['claim', 'complete', 'claim']);
  });

  test('50 concurrent resumes of one approved approval through the bundles: exactly one runs', async () => {
    const [pending] = await invoke([{ requestId: 'c-1', event: { tool: 'refund', args: { orderId: 'o-50' } } }]);
    const approvalId = pending.returned.approval_id as string;
    await store.decide(approvalId, { approved: true, by: 'test' });
    const outcomes = await invokeConcurrently(
      Array.from({ length: 50 }, (_, i) => ({ requestId: `c-r${i}`, event: { approval_id: approvalId } })),
    );
    const statuses = outcomes.map((o) => o.returned?.status ?? o.threw?.name);
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(1);
    expect(statuses.filter((s) => s !== 'ok').every((s) => s === 'already_done' || s === 'CallInProgress')).toBe(true);
    expect(await store.get(approvalId)).toMatchObject({ completedAt: expect.any(Number), result: { refunded: 'o-50' } });
  });

  test('the engine refuses a resume of a denied approval, typed: ApprovalDenied with the reason', async () => {
    const [pending] = await invoke([{ requestId: 'n-1', event: { tool: 'refund', args: { orderId: 'o-no' } } }]);
    const approvalId = pending.returned.approval_id as string;
    const fingerprint = JSON.parse((await invokeApi(functionUrlEvent('GET', `/approvals/${approvalId}`))).body).fingerprint;
    await invokeApi(functionUrlEvent('POST', `/approvals/${approvalId}/decision`, { body: { approved: false, reason: 'too much', fingerprint } }));
    const [resumed] = await invoke([{ requestId: 'n-2', event: { approval_id: approvalId } }]);
    expect(resumed.threw).toMatchObject({ name: 'ApprovalDenied', retryable: false, message: expect.stringMatching(/too much/) });
  });

  test('plain calls never load the Lambda client; the first approval does', async () => {
    const dir = await runScript(`
const { handler } = require(${JSON.stringify(bundle)});
const loaded = () => Object.keys(require.cache).some((file) => file.includes('client-lambda'));
const context = { awsRequestId: 'lazy-1', getRemainingTimeInMillis: () => 30000 };
(async () => {
  await handler({ tool: 'add', args: { a: 1, b: 1 } }, context);
  const afterPlain = loaded();
  await handler({ tool: 'refund', args: { orderId: 'o-lazy' } }, { ...context, awsRequestId: 'lazy-2' });
  require('node:fs').writeFileSync('loaded.json', JSON.stringify({ afterPlain, afterApproval: loaded() }));
})();
`);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'loaded.json'), 'utf8'))).toEqual({ afterPlain: false, afterApproval: true });
  });

  test('an engine that cannot be reached is a retryable StoreUnavailable', async () => {
    const closed = createServer();
    const endpoint = await listenOnLoopback(closed);
    await new Promise((resolve) => closed.close(resolve)); // nothing listens there any more
    const saved = variables;
    variables = { ...variables, AWS_ENDPOINT_URL_LAMBDA: endpoint };
    try {
      const [outcome] = await invoke([{ requestId: 'u-1', event: { tool: 'refund', args: { orderId: 'o-u' } } }]);
      expect(outcome.threw).toMatchObject({ name: 'StoreUnavailable', retryable: true });
    } finally {
      variables = saved;
    }
  });

  test('an engine that does not exist is StoreMisconfigured, never retryable, and says what to set', async () => {
    const saved = variables;
    variables = { ...variables, [VARIABLES.approvalsEngine]: 'no-such-engine' };
    try {
      const [outcome] = await invoke([{ requestId: 'u-2', event: { tool: 'refund', args: { orderId: 'o-u' } } }]);
      expect(outcome.threw).toMatchObject({ name: 'StoreMisconfigured', retryable: false });
      expect(outcome.threw.message).toMatch(/^The approvals engine \(no-such-engine\) cannot serve create \(ResourceNotFoundException: .*TOOL_HANDLER_APPROVALS_ENGINE/);
    } finally {
      variables = saved;
    }
  });
});

/** The ops the engine was asked for, in order. */
function engineOps(): string[] {
  return (host.invocations.get('engine') ?? []).map((request: any) => request.op);
}

/** Invokes the API bundle through the real Lambda client, as its function URL would. */
async function invokeApi(event: unknown): Promise<{ statusCode: number; body: string }> {
  const client = new LambdaClient({ region: 'us-east-1', endpoint: host.endpoint, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const output = await client.send(new InvokeCommand({ FunctionName: 'api', Payload: Buffer.from(JSON.stringify(event)) }));
  client.destroy();
  if (output.FunctionError) throw new Error(Buffer.from(output.Payload!).toString('utf8'));
  return JSON.parse(Buffer.from(output.Payload!).toString('utf8'));
}

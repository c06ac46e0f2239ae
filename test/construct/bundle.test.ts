import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { SampleStack } from '../../bin/sample-stack';
import { ENV as VARIABLES } from '../../lambda/names';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { eventBridgeEvent, sqsEvent, sqsRecord } from '../support/events';
import { ENV, onlyResource } from './helpers';

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

/**
 * A node_modules directory outside the repository holding only `@aws-sdk` (a symlink to the
 * repository's), like the Lambda runtime's. The SDK's own dependencies (`@smithy/*`) resolve from the
 * SDK's real path, as they do in the runtime.
 */
function sdkOnlyNodePath(): string {
  const modules = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runtime-')), 'node_modules');
  fs.mkdirSync(modules);
  fs.symlinkSync(path.join(REPO, 'node_modules', '@aws-sdk'), path.join(modules, '@aws-sdk'), 'dir');
  return modules;
}

let nodePath: string;
let bundle: string;
let variables: Record<string, string>;
let tableName: string;
let store: DynamoApprovalStore;

beforeAll(async () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-'));
  const app = new App({ outdir });
  const stack = new SampleStack(app, 'Sample', { env: ENV });
  const template = Template.fromStack(stack);
  const assets = JSON.parse(fs.readFileSync(path.join(outdir, `${stack.artifactId}.assets.json`), 'utf8'));
  const zips = Object.values(assets.files as Record<string, any>).filter((f) => f.source.packaging === 'zip');
  expect(zips).toHaveLength(1);
  bundle = path.join(outdir, zips[0].source.path, 'index.js');
  nodePath = sdkOnlyNodePath();

  const table = await createTestTable();
  tableName = table.tableName;
  store = new DynamoApprovalStore({ tableName, client: table.client });
  const fromTemplate = onlyResource(template, 'AWS::Lambda::Function').resource.Properties.Environment.Variables;
  variables = { ...fromTemplate, [VARIABLES.approvalsTable]: tableName };
}, 60_000);

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
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(),
      AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1',
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
    // The size goes into the closing note of issue 4.
    process.stdout.write(`bundled asset: ${fs.statSync(bundle).size} bytes (index.js, minified)\n`);
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

  test('an approval: pending, decided in the table, resumed once, then already done', async () => {
    const [pending] = await invoke([{ requestId: 'a-1', event: { tool: 'refund', args: { orderId: 'o-42' } } }]);
    expect(pending.returned).toMatchObject({ status: 'pending_approval', tool: 'refund' });
    const approvalId = pending.returned.approval_id as string;

    await store.decide(approvalId, { approved: true, by: 'alice', reason: 'checked' });
    const [resumed, again] = await invoke([
      { requestId: 'a-2', event: { approval_id: approvalId } },
      { requestId: 'a-3', event: { approval_id: approvalId } },
    ]);
    expect(resumed.returned).toMatchObject({ status: 'ok', tool: 'refund', approval_id: approvalId, result: { refunded: 'o-42' } });
    expect(again.returned).toMatchObject({ status: 'already_done', approval_id: approvalId });
  });
});

/**
 * Runs a synthesized handler bundle in a child `node` process as Lambda would (see
 * test/construct/bundle.test.ts for why): outside the repository, with a NODE_PATH holding only
 * `@aws-sdk/*`, the environment the construct set, pointed at dynalite.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ENV } from '../../lambda/construct-contract';
import { ToolHandler, ToolHandlerProps } from '../../lib';
import { dynaliteEndpoint } from './dynamo';
import { LOCAL_AWS_ENV } from './local-aws';
import { startLambdaHost, type LambdaHost } from './lambda-host';

const REPO = fs.realpathSync(path.join(__dirname, '..', '..'));
const run = promisify(execFile);

export interface SynthesizedFunction {
  /** The asset's index.js. */
  readonly bundle: string;
  /** The function's environment variables, from the template. */
  readonly env: Record<string, string>;
}

export interface SynthesizedBundle {
  /** The handler's asset index.js. */
  readonly bundle: string;
  /** The handler's environment variables, from the template. */
  readonly variables: Record<string, string>;
  readonly engine: SynthesizedFunction;
  readonly api: SynthesizedFunction;
  readonly expirer: SynthesizedFunction;
  /** The synthesized stack's template (alarms, dashboard). */
  readonly template: Template;
}

/** A function of a synthesized stack: its asset's index.js (found through the asset manifest) and its environment. */
export function synthesizedFunction(template: Template, outdir: string, fn: IFunction): SynthesizedFunction {
  const stack = Stack.of(fn);
  const resource = template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as CfnElement)];
  const assets = JSON.parse(fs.readFileSync(path.join(outdir, `${stack.artifactId}.assets.json`), 'utf8'));
  const hash = String(resource.Properties.Code.S3Key).replace(/\.zip$/, '');
  return { bundle: path.join(outdir, assets.files[hash].source.path, 'index.js'), env: resource.Properties.Environment?.Variables ?? {} };
}

/** Synthesizes one ToolHandler with bundling and returns its functions' bundles and environments. */
export function synthesizeBundle(props: ToolHandlerProps): SynthesizedBundle {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-'));
  const app = new App({ outdir });
  const stack = new Stack(app, 'Bundle', { env: { account: '123456789012', region: 'us-east-1' } });
  const tools = new ToolHandler(stack, 'Tools', props);
  const template = Template.fromStack(stack);
  const handler = synthesizedFunction(template, outdir, tools.lambdaFunction);
  return {
    bundle: handler.bundle,
    variables: handler.env,
    engine: synthesizedFunction(template, outdir, tools.approvalsEngine),
    api: synthesizedFunction(template, outdir, tools.approvalsApi),
    expirer: synthesizedFunction(template, outdir, tools.node.findChild('Approvals').node.findChild('Expirer') as IFunction),
    template,
  };
}


/**
 * Runs the approvals engine and API bundles behind a local Lambda endpoint (named `engine` and `api`)
 * on the table `tableName`; returns the host and the handler's environment that reaches them.
 */
export async function hostApprovals(
  synthesized: SynthesizedBundle,
  tableName: string,
  nodePath: string,
): Promise<{ host: LambdaHost; handlerEnv: Record<string, string> }> {
  const local = { ...LOCAL_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(), [ENV.approvalsTable]: tableName };
  const host = await startLambdaHost(
    {
      engine: { bundle: synthesized.engine.bundle, env: { ...synthesized.engine.env, ...local } },
      api: { bundle: synthesized.api.bundle, env: { ...synthesized.api.env, ...local } },
    },
    nodePath,
  );
  return {
    host,
    handlerEnv: {
      ...synthesized.variables,
      [ENV.approvalsTable]: tableName,
      [ENV.approvalsEngine]: 'engine',
      AWS_ENDPOINT_URL_LAMBDA: host.endpoint,
    },
  };
}

/** A node_modules outside the repository holding only `@aws-sdk` (a symlink), like Lambda's. */
export function sdkOnlyNodePath(): string {
  const modules = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runtime-')), 'node_modules');
  fs.mkdirSync(modules);
  fs.symlinkSync(path.join(REPO, 'node_modules', '@aws-sdk'), path.join(modules, '@aws-sdk'), 'dir');
  return modules;
}

export interface Invocation {
  readonly event: unknown;
  readonly requestId: string;
  /** `context.clientContext.custom`, as AgentCore Gateway sets it. @default - none */
  readonly custom?: Record<string, string>;
  /** The event as JSON text instead of `event`: one nested too deep for JSON.stringify here. @default - `event` */
  readonly eventJson?: string;
}

export type Outcome = { returned: any } | { threw: { name: string; message: string; retryable: boolean } };

/** Runs `steps` through the bundle's `handler` in one fresh node process; returns each outcome. */
export async function invokeBundle(
  bundle: string,
  env: Record<string, string>,
  steps: Invocation[],
  nodePath: string = sdkOnlyNodePath(),
): Promise<Outcome[]> {
  return (await invokeBundleWithOutput(bundle, env, steps, nodePath)).outcomes;
}

/** What one bundle process did: each step's outcome, and everything it wrote (its log lines). */
export interface BundleRun {
  readonly outcomes: Outcome[];
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `invokeBundle`, keeping what the process wrote. The steps travel as a JSON file (as Lambda hands
 * an event over: parsed, never compiled), so an event may nest deeper than a script could.
 */
export async function invokeBundleWithOutput(
  bundle: string,
  env: Record<string, string>,
  steps: Invocation[],
  nodePath: string = sdkOnlyNodePath(),
): Promise<BundleRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoke-'));
  const results = path.join(dir, 'results.json');
  const script = path.join(dir, 'invoke.js');
  const stepsFile = path.join(dir, 'steps.json');
  const stepTexts = steps.map(({ eventJson, event, ...rest }) => `${JSON.stringify(rest).slice(0, -1)},"event":${eventJson ?? JSON.stringify(event)}}`);
  fs.writeFileSync(stepsFile, `[${stepTexts.join(',')}]`);
  fs.writeFileSync(
    script,
    `
const fs = require('node:fs');
const { handler } = require(${JSON.stringify(bundle)});
const steps = JSON.parse(fs.readFileSync(${JSON.stringify(stepsFile)}, 'utf8'));
function context(awsRequestId, custom) {
  const end = Date.now() + 30000;
  return {
    awsRequestId,
    functionName: 'tools',
    getRemainingTimeInMillis: () => end - Date.now(),
    ...(custom ? { clientContext: { client: {}, env: {}, custom } } : {}),
  };
}
(async () => {
  const out = [];
  for (const { event, requestId, custom } of steps) {
    try {
      out.push({ returned: await handler(event, context(requestId, custom)) });
    } catch (error) {
      out.push({ threw: { name: error.name, message: error.message, retryable: error.retryable } });
    }
  }
  fs.writeFileSync(${JSON.stringify(results)}, JSON.stringify(out));
})();
`,
  );
  const { stdout, stderr } = await run(process.execPath, [script], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      NODE_PATH: nodePath,
      ...env,
      ...LOCAL_AWS_ENV,
      AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(),
    },
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { outcomes: JSON.parse(fs.readFileSync(results, 'utf8')), stdout, stderr };
}

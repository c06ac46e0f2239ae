/**
 * What `local` needs besides the CLI's bundle, found at run time: dynalite (the embedded DynamoDB)
 * and the `@aws-sdk/*` clients that the synthesized bundles leave to the Lambda runtime. They are
 * looked up from this package's installation and from the current directory's project (the SDK
 * clients are optional peers of the package: the project installs them); a missing one is an error
 * that says what to install.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { CliError } from '../console/errors';

/** The clients the handler, the approvals engine, API and expirer load at run time. */
export const RUNTIME_SDK_MODULES = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/client-lambda',
  '@aws-sdk/client-eventbridge',
] as const;

function requirers(): NodeRequire[] {
  return [require, createRequire(path.join(process.cwd(), 'package.json'))];
}

export function loadDynalite(): (options: Record<string, unknown>) => import('node:http').Server {
  for (const req of requirers()) {
    try {
      return req('dynalite');
    } catch {
      // try the next place
    }
  }
  throw new CliError(
    '`cdk-tool-handler local` runs an embedded DynamoDB, dynalite, which is not installed here: run `npm i -D dynalite`.',
  );
}

/**
 * The `node_modules` directories from which every runtime SDK client resolves, for the bundles'
 * NODE_PATH (the project's own first, so that its tools' extra clients resolve too).
 */
export function sdkNodePath(): string[] {
  const dirs: string[] = [];
  const missing: string[] = [];
  const project = path.join(process.cwd(), 'node_modules');
  for (const name of RUNTIME_SDK_MODULES) {
    let found: string | undefined;
    for (const req of requirers()) {
      try {
        // The entry, not package.json: a package's `exports` may not list its package.json.
        found = req.resolve(name);
        break;
      } catch {
        // try the next place
      }
    }
    if (!found) {
      missing.push(name);
      continue;
    }
    const dir = found.slice(0, found.lastIndexOf(`${path.sep}node_modules${path.sep}`) + '/node_modules'.length);
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  if (missing.length > 0) {
    throw new CliError(
      `The synthesized functions expect the AWS SDK from the Lambda runtime; locally these are missing: ${missing.join(', ')}. ` +
        `Run \`npm i -D ${missing.join(' ')}\`.`,
    );
  }
  return [project, ...dirs.filter((d) => d !== project)];
}

/**
 * `local --flow`'s Step Functions interpreter, aws-local-stepfunctions (with a `Promise.withResolvers`
 * shim on Node 20), and the Step Functions client the handler completes flows with: found like
 * dynalite, so that runs without flows never load them (nor carry them in the CLI's bundle).
 */
export function loadLocalStepFunctions(): typeof import('aws-local-stepfunctions') {
  const missing = ['aws-local-stepfunctions', '@aws-sdk/client-sfn'].filter((name) => !requirers().some((req) => resolves(req, name)));
  if (missing.length > 0) {
    throw new CliError(
      `\`cdk-tool-handler local --flow\` runs the state machine in aws-local-stepfunctions, and the handler completes its tasks with ` +
        `@aws-sdk/client-sfn; not installed here: ${missing.join(', ')}. Run \`npm i -D ${missing.join(' ')}\`.`,
    );
  }
  for (const req of requirers()) {
    if (resolves(req, 'aws-local-stepfunctions')) return req('aws-local-stepfunctions');
  }
  throw new CliError('aws-local-stepfunctions could not be loaded.');
}

function resolves(req: NodeRequire, name: string): boolean {
  try {
    req.resolve(name);
    return true;
  } catch {
    return false;
  }
}

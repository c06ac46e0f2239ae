/** The cloud assembly `local` runs: `--assembly DIR`, or `cdk synth` (the project's aws-cdk) into a temporary directory. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { CliError } from '../console/errors';
import { interrupted } from './interrupt';

/** `--app` may name a cloud assembly already (as for the CDK CLI): nothing to synthesize then. */
export function assemblyNamedByApp(app: string | undefined, cwd: string): string | undefined {
  if (app === undefined) return undefined;
  const dir = path.resolve(cwd, app);
  return fs.existsSync(path.join(dir, 'manifest.json')) ? dir : undefined;
}

export async function synthesize(input: {
  app?: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Stops the synth (its `cdk` process) and removes its output. @default - runs to its end */
  signal?: AbortSignal;
}): Promise<string> {
  if (input.app === undefined && !fs.existsSync(path.join(input.cwd, 'cdk.json'))) {
    throw new CliError('Nothing to synthesize: no cdk.json here. Pass --app "<command>" or --assembly <cdk.out directory>.');
  }
  const cdk = findCdkCli(input.cwd);
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-tool-handler-local-'));
  const args = ['synth', '--no-notices', '-q', '-o', outdir, ...(input.app === undefined ? [] : ['--app', input.app])];
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(input.env)) if (v !== undefined) env[k] = v;
  env.CDK_DISABLE_CLI_TELEMETRY = 'true';
  try {
    const output = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [cdk, ...args], { cwd: input.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], signal: input.signal });
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (text += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, text }));
    });
    if (output.code !== 0 || input.signal?.aborted) {
      throw new CliError(`\`cdk ${args.join(' ')}\` failed (exit ${output.code}):\n${output.text.trim().split('\n').slice(-30).join('\n')}`);
    }
  } catch (error) {
    // No assembly then: its directory goes, and a stop is said as one.
    fs.rmSync(outdir, { recursive: true, force: true });
    throw input.signal?.aborted ? interrupted(input.signal) : error;
  }
  return outdir;
}

/**
 * The AWS CDK CLI (`aws-cdk`) of the project in `cwd`, else of this package's installation. Not
 * `npx cdk`: where aws-cdk is not installed, npx would fetch an unrelated package named `cdk`.
 */
function findCdkCli(cwd: string): string {
  for (const req of [createRequire(path.join(cwd, 'package.json')), require]) {
    try {
      return req.resolve('aws-cdk/bin/cdk');
    } catch {
      // try the next place
    }
  }
  throw new CliError('Synthesizing needs the AWS CDK CLI: run `npm i -D aws-cdk`, or pass --assembly <cdk.out directory>.');
}

/**
 * The one-file build (`cli/build.mjs`): built to a temp file and run as the user runs it, a child
 * `node` with the SDK parts inside, against the local function URL and CloudFormation stubs.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startFunctionUrlHost, type FunctionUrlHost } from '../../local/function-url';
import { ALICE } from './cli-contract';
import { startCloudFormationStub, type CloudFormationStub } from './cloudformation-stub';
import { bareEnv, credentialsEnv } from './harness';
import { memoryApprovalsApi } from './memory-approvals-api';

const exec = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const bundle = join(mkdtempSync(join(tmpdir(), 'cli-bundle-')), 'cli.js');

let host: FunctionUrlHost;
let cfn: CloudFormationStub;
const api = memoryApprovalsApi();

beforeAll(async () => {
  await exec(process.execPath, [join(ROOT, 'cli', 'build.mjs'), bundle], { cwd: ROOT });
  host = await startFunctionUrlHost({
    handler: api.handler,
    credentials: { [ALICE.accessKeyId]: { secretAccessKey: ALICE.secretAccessKey, userArn: ALICE.userArn } },
  });
  cfn = await startCloudFormationStub({ App: { outputs: [{ key: 'AppToolsApprovalsApiUrl', value: host.url }] } });
}, 60_000);
afterAll(async () => {
  await Promise.all([host?.close(), cfn?.close()]);
});

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bundle, 'approvals', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const env = () => ({ ...credentialsEnv(ALICE.accessKeyId, ALICE.secretAccessKey), AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.endpoint });

test('is one executable file with a node shebang', () => {
  expect(readFileSync(bundle, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  expect(statSync(bundle).mode & 0o111).not.toBe(0);
});

test('lists, approves and reads through --stack', async () => {
  const id = await api.seed({ tool: 'send_email', args: { to: 'bob@example.com' } });
  const list = await cli(['list', '--stack', 'App'], env());
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(new RegExp(`^${id}\\s+send_email\\s+pending`, 'm'));
  const approve = await cli(['approve', id, '--yes', '--reason', 'ok', '--url', host.url], env());
  expect(approve.code).toBe(0);
  expect(approve.stdout).toContain(`Approved ${id}, tool send_email as ${ALICE.userArn} (reason: ok).`);
  const show = await cli(['show', id, '--url', host.url, '--json'], env());
  expect(JSON.parse(show.stdout)).toMatchObject({ status: 'approved', reason: 'ok' });
});

test('exit codes: 2 for a pipe without --yes, 1 without credentials', async () => {
  const id = await api.seed({ tool: 'send_email', args: {} });
  const refused = await cli(['deny', id, '--url', host.url], env());
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('stdin is not a terminal');
  const bare = await cli(['list', '--url', host.url], bareEnv());
  expect(bare.code).toBe(1);
  expect(bare.stderr).toContain('No AWS credentials found');
});

/**
 * Each `local` run makes its own secret (the approver's keys), kept in a state file only its user
 * can read, where `approvals --local` finds it: two runs, two secrets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LocalState } from '../../local/state';
import { until } from '../support/until';
import { cliFixture, local, REPO, synthesizeSample, removeMade } from './sample-assembly';

afterAll(removeMade);

const { bundle, stateFile, env, build } = cliFixture();

let assembly: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  assembly = synthesizeSample();
  await build();
}, 120_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `local` serving, returns its state file's mode and content, stops it. */
async function oneRun(): Promise<{ mode: number; state: LocalState; listed: number }> {
  const child = spawn(process.execPath, [bundle, 'local', '--assembly', assembly], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await until(() => stderr.includes('serving: decide with'), 'local to start serving', () => ({ stdout: '', stderr }), { ms: 20_000, child });
  const mode = fs.statSync(stateFile).mode & 0o777;
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as LocalState;
  const listed = (await local(['approvals', 'list', '--local'], env)).code;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
  return { mode, state, listed };
}

test('the state file is 0600, even over a wider file left before; it holds a secret of the run\'s own', async () => {
  fs.writeFileSync(stateFile, '{"left":"by someone"}', { mode: 0o644 });
  fs.chmodSync(stateFile, 0o644);
  const first = await oneRun();
  expect(first.mode).toBe(0o600);
  expect(first.listed).toBe(0);
  expect(first.state.secretAccessKey).toMatch(/^[A-Za-z0-9+/]{40}$/);
  expect(first.state.accessKeyId).toMatch(/^AKIA[A-Z0-9]{16}$/);

  const second = await oneRun();
  expect(second.mode).toBe(0o600);
  expect(second.listed).toBe(0);
  expect(second.state.secretAccessKey).not.toBe(first.state.secretAccessKey);
  expect(second.state.accessKeyId).not.toBe(first.state.accessKeyId);
}, 90_000);

test('approvals --local refuses a state file that others can read: local did not write it', async () => {
  const planted = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'local-state-')), 'planted.json');
  const state: LocalState = { url: 'http://127.0.0.1:9/', region: 'us-east-1', accessKeyId: 'AKIAPLANTED', secretAccessKey: 'x', principal: 'arn:aws:iam::000000000000:user/p', stack: 'S', pid: process.pid };
  fs.writeFileSync(planted, JSON.stringify(state));
  fs.chmodSync(planted, 0o644);
  const result = await local(['approvals', 'list', '--local'], { ...process.env, CDK_TOOL_HANDLER_LOCAL_STATE: planted });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`The local run's state file ${planted} is not private to you (mode 644)`);
});

/**
 * `local` as a user runs it: the one-file CLI build in a child `node`, serving until Ctrl-C, and
 * `approvals list|approve --local` (in-process) deciding through its local API; the decision
 * resumes the call by itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { until } from '../support/until';
import { cliFixture, local, REPO, synthesizeSample, removeMade } from './sample-assembly';

afterAll(removeMade);

const { bundle, stateFile, env, build } = cliFixture();

let assembly: string;
let child: ChildProcess | undefined;
let stdout = '';
let stderr = '';

beforeAll(async () => {
  assembly = synthesizeSample();
  await build();
}, 120_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

const printed = () => ({ stdout, stderr });

test('serves the approvals API to `approvals --local` until SIGINT; a decision resumes the call', async () => {
  const refund = JSON.stringify({ tool: 'refund', args: { orderId: 'o-served' }, run_id: 'served', call_id: 'c1' });
  // The repository as working directory: the SDK clients and dynalite resolve from its node_modules, as from an installed package's.
  child = spawn(process.execPath, [bundle, 'local', '--assembly', assembly, refund], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await until(() => stderr.includes('serving: decide with'), 'serving', printed, { ms: 20_000 });
  const id = /← pending_approval refund (apr_\S+)/.exec(stdout)?.[1];
  expect(id).toBeDefined();
  expect(JSON.parse(fs.readFileSync(stateFile, 'utf8'))).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/), pid: child.pid });

  const list = await local(['approvals', 'list', '--local'], env);
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(new RegExp(`^${id}\\s+refund\\s+pending`, 'm'));

  const approve = await local(['approvals', 'approve', id!, '--local', '--yes', '--reason', 'fine'], env);
  expect(approve.code).toBe(0);
  expect(approve.stdout).toContain(`Approved ${id}, tool refund as arn:aws:sts::000000000000:assumed-role/Approver/alice (reason: fine).`);

  await until(() => stdout.includes('← ok refund result {"refunded":"o-served"}'), 'the resumed reply', printed, { ms: 20_000 });
  expect(stdout).toContain(`→ resume ${id}`);

  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(fs.existsSync(stateFile)).toBe(false);

  const after = await local(['approvals', 'list', '--local'], env);
  expect(after.code).toBe(1);
  expect(after.stderr).toContain('No local run found');
}, 60_000);

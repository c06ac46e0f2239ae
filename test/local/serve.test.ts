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

  // More calls for the running run, from another command: each reply printed once, by the command.
  const more = await local(['local', 'call', '{"tool":"add","args":{"a":2,"b":3}}', '{"tool":"refund","args":{"orderId":"o-more"}}'], env);
  expect(more.code).toBe(0);
  expect(more.stdout.split('\n').filter(Boolean)).toEqual(['← ok add result 5', expect.stringMatching(/^← pending_approval refund apr_\S+ \(expires \S+\)$/)]);
  await until(() => stdout.includes('← ok add result 5   [bus: Tool Call Succeeded]'), 'the run showing the bus event of the call', printed, { ms: 20_000 });
  const bad = await local(['local', 'call', '{"tool":"add","args":{"a":"x"}}', '--json'], env);
  expect(bad.code).toBe(1);
  expect(JSON.parse(bad.stdout)).toMatchObject({ type: 'thrown', error: { errorType: 'ToolUsageError' } });
  const none = await local(['local', 'call'], env);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('`local call` needs an envelope');

  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(fs.existsSync(stateFile)).toBe(false);

  const after = await local(['approvals', 'list', '--local'], env);
  expect(after.code).toBe(1);
  expect(after.stderr).toContain('No local run found');
}, 60_000);

/**
 * `local` started through a real `npx` stops cleanly on a signal. npm runs a package's bin
 * through `sh -c`, and hands a SIGTERM or SIGINT it gets to that shell only (@npmcli/run-script's
 * signal manager): the shell exits on SIGTERM, leaving the CLI's node process behind unless the CLI
 * notices (cli/bin.ts), and waits out a SIGINT. Here the packed layout is made by hand: the CLI
 * bundle as `node_modules/cdk-tool-handler`'s bin in a project of its own, with dynalite and the SDK
 * clients linked from this repository, so `npx cdk-tool-handler` resolves it locally (no registry).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { until } from '../support/until';
import { cliFixture, REPO, removeMade, synthesizeSlowTools } from './sample-assembly';

afterAll(removeMade);

const { bundle, stateFile, env, build } = cliFixture();
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'npx-project-'));
/** The one assembly of these tests: the signal tests need only a `local` run that serves, the --calls one its slow tool. */
let slowAssembly: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  slowAssembly = synthesizeSlowTools(Duration.seconds(30));
  await build();
  const pkg = path.join(project, 'node_modules', 'cdk-tool-handler');
  fs.mkdirSync(path.join(project, 'node_modules', '.bin'), { recursive: true });
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'npx-project', version: '1.0.0', private: true }));
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'cdk-tool-handler', version: '0.0.0', bin: { 'cdk-tool-handler': 'cli.js' } }));
  fs.copyFileSync(bundle, path.join(pkg, 'cli.js'));
  fs.chmodSync(path.join(pkg, 'cli.js'), 0o755);
  fs.symlinkSync('../cdk-tool-handler/cli.js', path.join(project, 'node_modules', '.bin', 'cdk-tool-handler'));
  for (const name of ['dynalite', '@aws-sdk']) fs.symlinkSync(path.join(REPO, 'node_modules', name), path.join(project, 'node_modules', name), 'dir');
}, 180_000);

afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(project, { recursive: true, force: true });
});

/** `npx cdk-tool-handler <args>` in the project; output collected until every process holding the pipes has ended. */
function npx(args: string[], options: { detached?: boolean } = {}) {
  const child = spawn('npx', ['--no', 'cdk-tool-handler', ...args], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached });
  started.push(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  // `close` comes once the CLI's node process, which shares the pipes, has exited too.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, out, closed };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('SIGTERM to npx: the CLI (a grandchild of npx) stops, removing its state file', async () => {
  const { child, out, closed } = npx(['local', '--assembly', slowAssembly]);
  await until(() => out.stderr.includes('serving: decide with'), 'serving', () => out);
  const { pid } = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { pid: number };
  expect(pid).not.toBe(child.pid);
  child.kill('SIGTERM');
  await until(() => !alive(pid), 'the CLI to stop', () => out, { ms: 10_000 });
  await closed;
  expect(fs.existsSync(stateFile)).toBe(false);
}, 60_000);

test('SIGINT to the process group (what Ctrl-C sends): the CLI stops cleanly, and npx ends', async () => {
  const { child, out, closed } = npx(['local', '--assembly', slowAssembly], { detached: true });
  await until(() => out.stderr.includes('serving: decide with'), 'serving', () => out);
  const { pid } = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { pid: number };
  process.kill(-child.pid!, 'SIGINT');
  await until(() => !alive(pid), 'the CLI to stop', () => out, { ms: 10_000 });
  await closed;
  expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
  expect(fs.existsSync(stateFile)).toBe(false);
}, 60_000);

test('SIGTERM to npx during --calls: unfinished calls end `interrupted`, printed before the CLI exits', async () => {
  const file = path.join(project, 'slow.jsonl');
  fs.writeFileSync(file, `${JSON.stringify({ tool: 'slow', args: { ms: 20_000 } })}\n`);
  const { child, out, closed } = npx(['local', '--assembly', slowAssembly, '--calls', file, '--timeout', '60']);
  await until(() => out.stderr.includes('→ call slow'), 'the call', () => out);
  const sent = Date.now();
  child.kill('SIGTERM');
  await closed;
  expect(Date.now() - sent).toBeLessThan(10_000);
  expect(out.stdout).toBe('1 slow interrupted: stopped by SIGTERM\n');
  expect(out.stderr).toContain('calls: 0 of 1 ended as asked, 1 did not.');
}, 60_000);

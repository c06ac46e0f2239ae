/**
 * Where `local` keeps its state file (the run's approver keys, for `approvals --local`): in a
 * directory of the user's own that no other user can create or replace, not under a predictable
 * name in the shared temporary directory. Another user who takes the old name first does not stop
 * `local`; a state directory that is not the user's own private one (a link, a file, another user's
 * or an open directory) is refused, naming what to remove, and nothing is written through it.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LocalState } from '../../local/state';
import { until } from '../support/until';
import { cliFixture, local, REPO, removeMade, synthesizeSample } from './sample-assembly';

const { bundle, build } = cliFixture();
/** Another user, for the directories "someone else" made (as root, the tests can give them away). */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let assembly: string;
const made: string[] = [];

beforeAll(async () => {
  assembly = synthesizeSample();
  await build();
}, 120_000);

afterAll(() => {
  removeMade();
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A user's world: a home, a temporary directory of its own (so the old predictable name is checkable), and an XDG runtime directory when asked. */
function userEnv(options: { readonly xdg: boolean }): { env: NodeJS.ProcessEnv; home: string; tmp: string; xdg?: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'local-user-'));
  made.push(root);
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.mkdirSync(tmp, { mode: 0o777 });
  const { CDK_TOOL_HANDLER_LOCAL_STATE: _given, XDG_RUNTIME_DIR: _xdg, ...rest } = process.env;
  const env: NodeJS.ProcessEnv = { ...rest, HOME: home, TMPDIR: tmp };
  if (!options.xdg) return { env, home, tmp };
  const xdg = path.join(root, 'run-user');
  fs.mkdirSync(xdg, { mode: 0o700 });
  return { env: { ...env, XDG_RUNTIME_DIR: xdg }, home, tmp, xdg };
}

/** The file name `local` used to take in the shared temporary directory, for this working directory. */
function oldPredictableName(tmp: string): string {
  return path.join(tmp, `cdk-tool-handler-local-${createHash('sha256').update(path.resolve(REPO)).digest('hex').slice(0, 16)}.json`);
}

/** Starts `local` serving in the repository with `env`; it either serves (then is stopped) or exits. */
async function startLocal(env: NodeJS.ProcessEnv, whileServing: () => Promise<void> = async () => undefined): Promise<{ served: boolean; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bundle, 'local', '--assembly', assembly], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await until(() => stderr.includes('serving: decide with') || child.exitCode !== null, 'local to serve or exit', () => ({ stdout: '', stderr }), {
      ms: 30_000,
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const served = stderr.includes('serving: decide with');
  if (served) {
    try {
      await whileServing();
    } finally {
      child.kill('SIGINT');
    }
  }
  return { served, code: await exited, stderr };
}

function stateFileIn(dir: string): string {
  return path.join(dir, `local-${createHash('sha256').update(path.resolve(REPO)).digest('hex').slice(0, 16)}.json`);
}

async function expectStateServed(env: NodeJS.ProcessEnv, dir: string): Promise<void> {
  const file = stateFileIn(dir);
  expect(fs.lstatSync(dir).isDirectory()).toBe(true);
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect((JSON.parse(fs.readFileSync(file, 'utf8')) as LocalState).accessKeyId).toMatch(/^AKIA[A-Z0-9]{16}$/);
  const listed = await local(['approvals', 'list', '--local'], env);
  expect(listed).toMatchObject({ code: 0 });
}

test.each([
  ['a directory', (name: string) => fs.mkdirSync(name, { mode: 0o777 })],
  ['a file of another user\'s', (name: string) => {
    fs.writeFileSync(name, '{"url":"http://127.0.0.1:9/","pid":1}', { mode: 0o644 });
    if (asRoot) fs.chownSync(name, NOBODY, NOBODY);
  }],
])('the old predictable name in the shared temporary directory, taken first by someone else (%s), does not stop local', async (_, squat) => {
  const { env, home, tmp } = userEnv({ xdg: false });
  const squatted = oldPredictableName(tmp);
  squat(squatted);
  const before = fs.lstatSync(squatted);
  const dir = path.join(home, '.cdk-tool-handler', 'local');
  const run = await startLocal(env, () => expectStateServed(env, dir));
  expect(run).toMatchObject({ served: true, code: 0 });
  // Left as it was, and the state file gone with the run.
  expect(fs.lstatSync(squatted)).toMatchObject({ uid: before.uid, mode: before.mode, ino: before.ino });
  expect(fs.existsSync(stateFileIn(dir))).toBe(false);
}, 60_000);

test('with XDG_RUNTIME_DIR set, the state file lives in $XDG_RUNTIME_DIR/cdk-tool-handler, and approvals --local finds it there', async () => {
  const { env, xdg, home } = userEnv({ xdg: true });
  const dir = path.join(xdg!, 'cdk-tool-handler');
  const run = await startLocal(env, () => expectStateServed(env, dir));
  expect(run).toMatchObject({ served: true, code: 0 });
  expect(fs.existsSync(path.join(home, '.cdk-tool-handler'))).toBe(false);
}, 60_000);

/** Someone else's directory that anyone may write to. */
function othersOpenDirectory(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-others-'));
  made.push(dir);
  fs.chmodSync(dir, 0o777);
  if (asRoot) fs.chownSync(dir, NOBODY, NOBODY);
  return dir;
}

/** What stands where the state directory goes: its name, whether under XDG_RUNTIME_DIR, what the refusal calls it, and how it is made (returning where a write through it would land). */
type Squat = [string, boolean, string, (dir: string) => string | undefined];

const OWNED_BY_ANOTHER: Squat = [
  'a directory another user made, open to all',
  false,
  `owned by another user (uid ${NOBODY})`,
  (dir) => {
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    fs.mkdirSync(dir, { mode: 0o777 });
    fs.chmodSync(dir, 0o777);
    fs.chownSync(dir, NOBODY, NOBODY);
    return dir;
  },
];

const SQUATS: Squat[] = [
  ['a symbolic link to another user\'s open directory', true, 'a symbolic link', (dir) => {
    const target = othersOpenDirectory();
    fs.symlinkSync(target, dir);
    return target;
  }],
  ['a file where the directory should be', false, 'not a directory', (dir) => {
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    fs.writeFileSync(dir, 'not a directory');
    return undefined;
  }],
  // Only root can give a directory away.
  ...(asRoot ? [OWNED_BY_ANOTHER] : []),
  ['a directory of the user\'s own that others may enter (mode 755)', true, 'open to other users (mode 755)', (dir) => {
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    return dir;
  }],
];

test.each(SQUATS)('a state directory that is %s is refused, naming what to remove; nothing is written there', async (_, xdg, what, squat) => {
  const { env, home, xdg: runtime, tmp } = userEnv({ xdg });
  const dir = xdg ? path.join(runtime!, 'cdk-tool-handler') : path.join(home, '.cdk-tool-handler', 'local');
  const reached = squat(dir);
  const run = await startLocal(env);
  expect(run).toMatchObject({ served: false, code: 1 });
  expect(run.stderr).toContain(`The local run's state directory ${dir} is ${what}`);
  expect(run.stderr).toContain(`Remove it (rm -r ${JSON.stringify(dir)})`);
  if (reached) expect(fs.readdirSync(reached)).toEqual([]);
  // Nor anywhere else: not under the old predictable name either.
  expect(fs.existsSync(oldPredictableName(tmp))).toBe(false);
}, 60_000);

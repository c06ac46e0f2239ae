/**
 * How `approvals --local` finds a running `local`: a small file, one per app folder (or
 * `CDK_TOOL_HANDLER_LOCAL_STATE`), holding the local API's URL and the run's approver keys, the
 * secret its function URL accepts; only its owner may read it (mode 0600). It lives in a directory
 * of the user's own that no other user can create or replace, never under a predictable name in a
 * shared temporary directory (where another user who made it first would stop `local` or read it):
 * `$XDG_RUNTIME_DIR/cdk-tool-handler/` when that is set (a per-user directory by its definition),
 * else `~/.cdk-tool-handler/local/`; either is made with mode 0700, and used only when it is a real
 * directory (not a link) owned by this user that no one else may enter.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CliError } from '../console/errors';

export interface LocalState {
  readonly url: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly principal: string;
  readonly stack: string;
  readonly pid: number;
  /** The run's audit file (`auditFileFor`): one audit record per line, as its functions wrote them. */
  readonly audit?: string;
  /** Where `local call` sends calls: the run's Lambda endpoint, the tool handler's name, and keys that may invoke it only. */
  readonly calls?: { readonly endpoint: string; readonly functionName: string; readonly accessKeyId: string; readonly secretAccessKey: string };
}

export const STATE_VARIABLE = 'CDK_TOOL_HANDLER_LOCAL_STATE';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where `local` writes its state file: `CDK_TOOL_HANDLER_LOCAL_STATE` as given, or the file for
 * `cwd` in the user's state directory, which is made (mode 0700) or checked first: a directory that
 * is not this user's own private one is refused, naming what to remove.
 */
export function statePath(env: Env, cwd = process.cwd()): string {
  const given = env[STATE_VARIABLE];
  if (given) return given;
  const dir = stateDirectory(env);
  ensurePrivateDirectory(dir);
  return stateFileIn(dir, cwd);
}

/**
 * Where `approvals --local` (and `local call`) look, without making anything: the file `statePath`
 * gives for `cwd` or, failing that, for the nearest folder above it that has one, so that a command
 * run from `app/lib` finds the run started in `app`. `undefined` when no folder has one.
 */
function findStatePath(env: Env, cwd = process.cwd()): string | undefined {
  const given = env[STATE_VARIABLE];
  if (given) return given;
  const dir = stateDirectory(env);
  for (let folder = path.resolve(cwd); ; folder = path.dirname(folder)) {
    const file = stateFileIn(dir, folder);
    if (fs.existsSync(file)) return file;
    if (path.dirname(folder) === folder) return undefined;
  }
}

function stateFileIn(dir: string, cwd: string): string {
  const key = createHash('sha256').update(path.resolve(cwd)).digest('hex').slice(0, 16);
  return path.join(dir, `local-${key}.json`);
}

/** `$XDG_RUNTIME_DIR/cdk-tool-handler`, else `~/.cdk-tool-handler/local` (`HOME` as the environment gives it). */
function stateDirectory(env: Env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'cdk-tool-handler');
  return path.join(env.HOME || os.homedir(), '.cdk-tool-handler', 'local');
}

/**
 * Makes `dir` for this user alone, or checks that it already is: a real directory (a symbolic link
 * could lead anywhere), owned by this user, that no other user may enter.
 */
function ensurePrivateDirectory(dir: string): void {
  try {
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new CliError(
        `Could not make the local run's state directory ${dir} (${(error as NodeJS.ErrnoException).code}): remove whatever stands in its ` +
          `way on that path, or set ${STATE_VARIABLE} to a file of your own.`,
      );
    }
  }
  if (process.platform === 'win32') return;
  const found = fs.lstatSync(dir);
  const what = found.isSymbolicLink()
    ? 'a symbolic link'
    : !found.isDirectory()
      ? 'not a directory'
      : found.uid !== process.getuid?.()
        ? `owned by another user (uid ${found.uid})`
        : (found.mode & 0o077) !== 0
          ? `open to other users (mode ${(found.mode & 0o777).toString(8)})`
          : undefined;
  if (what !== undefined) {
    throw new CliError(
      `The local run's state directory ${dir} is ${what}: \`cdk-tool-handler local\` did not make it, and will not write its ` +
        `secret there. Remove it (rm -r ${JSON.stringify(dir)}) and start \`local\` again, or set ${STATE_VARIABLE} to a file of your own.`,
    );
  }
}

/**
 * The `local --mcp` bearer token of the app in `cwd`: kept beside the state files (same private
 * directory; beside `CDK_TOOL_HANDLER_LOCAL_STATE` when that is set) so that a saved MCP client
 * configuration keeps working across runs; a new one is made when there is none or `rotate` is set.
 */
export function mcpToken(env: Env, options: { rotate?: boolean } = {}, cwd = process.cwd()): string {
  const file = `${statePath(env, cwd)}.mcp-token`;
  if (!options.rotate && fs.existsSync(file)) {
    assertPrivate(file, 'MCP token file');
    const kept = fs.readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{43}$/.test(kept)) return kept;
  }
  const token = randomBytes(32).toString('base64url');
  writePrivate(file, token);
  return token;
}

/**
 * Written to a new file, private from its creation, then renamed over the path: a file left there
 * before (whatever its mode or owner's intent) never receives the secret.
 */
export function writeState(file: string, state: LocalState): void {
  writePrivate(file, JSON.stringify(state, null, 2));
}

function writePrivate(file: string, text: string): void {
  const fresh = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(fresh, text, { mode: 0o600, flag: 'wx' });
    fs.renameSync(fresh, file);
  } catch (error) {
    fs.rmSync(fresh, { force: true });
    throw new CliError(`Could not write the local run's file ${file}: ${(error as Error).message}`);
  }
}

/**
 * Where a run keeps its audit records: beside its state file, in the same private directory
 * (`local-<key>.json` → `local-<key>.audit.jsonl`).
 */
export function auditFileFor(stateFile: string): string {
  return `${stateFile.replace(/\.json$/, '')}.audit.jsonl`;
}

export function removeState(file: string, pid = process.pid): void {
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalState;
    if (state.pid === pid) fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

export function readState(env: Env, cwd = process.cwd()): LocalState {
  const file = findStatePath(env, cwd);
  const noRun =
    'No local run found here or in a folder above: start `cdk-tool-handler local` in your app\'s folder (where cdk.json is) ' +
    'first; it keeps running until Ctrl-C.';
  if (file === undefined) throw new CliError(noRun);
  let state: LocalState;
  try {
    state = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalState;
  } catch {
    throw new CliError(noRun);
  }
  assertPrivate(file);
  if (!alive(state.pid)) {
    throw new CliError(`The local run (process ${state.pid}) has ended: start \`cdk-tool-handler local\` again.`);
  }
  return state;
}

/** `local` writes its files 0600 as its user: any other file there was not written by it. */
export function assertPrivate(file: string, what = 'state file'): void {
  if (process.platform === 'win32') return;
  const { uid, mode } = fs.statSync(file);
  if (uid !== process.getuid?.() || (mode & 0o077) !== 0) {
    throw new CliError(
      `The local run's ${what} ${file} is not private to you (mode ${(mode & 0o777).toString(8)}): \`cdk-tool-handler local\` ` +
        'did not write it. Remove it and start `local` again.',
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

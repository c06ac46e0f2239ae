/**
 * How `approvals --local` finds a running `local`: a small file in the temporary directory, one per
 * working directory (or `CDK_TOOL_HANDLER_LOCAL_STATE`), holding the local API's URL and the run's
 * approver keys, the secret its function URL accepts; only its owner may read it (mode 0600).
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
}

export const STATE_VARIABLE = 'CDK_TOOL_HANDLER_LOCAL_STATE';

export function statePath(env: Readonly<Record<string, string | undefined>>, cwd = process.cwd()): string {
  const given = env[STATE_VARIABLE];
  if (given) return given;
  const key = createHash('sha256').update(path.resolve(cwd)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `cdk-tool-handler-local-${key}.json`);
}

/**
 * Written to a new file, private from its creation, then renamed over the path: a file left there
 * before (whatever its mode or owner's intent) never receives the secret.
 */
export function writeState(file: string, state: LocalState): void {
  const fresh = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(fresh, JSON.stringify(state, null, 2), { mode: 0o600, flag: 'wx' });
    fs.renameSync(fresh, file);
  } catch (error) {
    fs.rmSync(fresh, { force: true });
    throw new CliError(`Could not write the local run's state file ${file}: ${(error as Error).message}`);
  }
}

export function removeState(file: string, pid = process.pid): void {
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalState;
    if (state.pid === pid) fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

export function readState(env: Readonly<Record<string, string | undefined>>): LocalState {
  const file = statePath(env);
  let state: LocalState;
  try {
    state = JSON.parse(fs.readFileSync(file, 'utf8')) as LocalState;
  } catch {
    throw new CliError('No local run found: start `cdk-tool-handler local` in this directory first (it keeps running until Ctrl-C).');
  }
  assertPrivate(file);
  if (!alive(state.pid)) {
    throw new CliError(`The local run (process ${state.pid}) has ended: start \`cdk-tool-handler local\` again.`);
  }
  return state;
}

/** `local` writes the file 0600 as its user: any other file there was not written by it. */
function assertPrivate(file: string): void {
  if (process.platform === 'win32') return;
  const { uid, mode } = fs.statSync(file);
  if (uid !== process.getuid?.() || (mode & 0o077) !== 0) {
    throw new CliError(
      `The local run's state file ${file} is not private to you (mode ${(mode & 0o777).toString(8)}): \`cdk-tool-handler local\` ` +
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

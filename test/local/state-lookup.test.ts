/**
 * `approvals --local` finds the run from any folder below the one `local` started in (its app's
 * folder), the nearest run first, and says where to start one when there is none.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readState, statePath, writeState, type LocalState } from '../../local/state';

const made: string[] = [];
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function folder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-lookup-'));
  made.push(dir);
  return dir;
}

const state = (stack: string): LocalState => ({
  url: 'http://127.0.0.1:1/',
  region: 'us-east-1',
  accessKeyId: 'AKIDLOCAL',
  secretAccessKey: 'local-secret',
  principal: 'arn:aws:iam::000000000000:user/local',
  stack,
  pid: process.pid,
});

test('from a folder below the app, the run of the app; from a nested app with its own run, that one', () => {
  const env = { XDG_RUNTIME_DIR: folder() };
  const app = folder();
  fs.mkdirSync(path.join(app, 'lib', 'deep'), { recursive: true });
  writeState(statePath(env, app), state('App'));
  expect(readState(env, path.join(app, 'lib', 'deep')).stack).toBe('App');
  expect(readState(env, app).stack).toBe('App');

  const nested = path.join(app, 'lib');
  writeState(statePath(env, nested), state('Nested'));
  expect(readState(env, path.join(nested, 'deep')).stack).toBe('Nested');
  expect(readState(env, app).stack).toBe('App');
});

test('no run in the folder or above: the error says where to start one', () => {
  const env = { XDG_RUNTIME_DIR: folder() };
  expect(() => readState(env, folder())).toThrow(
    "No local run found here or in a folder above: start `cdk-tool-handler local` in your app's folder (where cdk.json is) first",
  );
});

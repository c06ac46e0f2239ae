import { startFunctionUrlHost, type FunctionUrlHost } from '../../local/function-url';
import { ALICE, describeCliContract } from './cli-contract';
import type { ApprovalRecord } from '../../approvals-client/record';
import { credentialsEnv, runCli } from './harness';
import { expectSafe, HOSTILE } from './hostile';
import { memoryApprovalsApi } from './memory-approvals-api';

describeCliContract('the in-memory approvals API', async () => {
  // Pages of at most 3, below the CLI's limit: a page may hold fewer than `limit`.
  const api = memoryApprovalsApi({ maxPageSize: 3 });
  return { handler: api.handler, seed: api.seed, canSeedExpired: true };
});

describe('server errors', () => {
  let host: FunctionUrlHost;
  let fail: () => Promise<unknown>;
  beforeAll(async () => {
    host = await startFunctionUrlHost({
      handler: () => fail(),
      credentials: { [ALICE.accessKeyId]: { secretAccessKey: ALICE.secretAccessKey, userArn: ALICE.userArn } },
    });
  });
  afterAll(() => host.close());
  const list = () => runCli(['approvals', 'list', '--url', host.url], { env: credentialsEnv(ALICE.accessKeyId, ALICE.secretAccessKey) });

  test("the API's own 5xx shows status, type and message", async () => {
    fail = async () => ({ statusCode: 503, body: JSON.stringify({ error: { type: 'store_unavailable', message: 'The approvals table is throttled: retry.' } }) });
    expect(await list()).toMatchObject({ code: 1, stderr: 'Error: 503 store_unavailable: The approvals table is throttled: retry.\n' });
  });

  test("the function URL's 502 for a crashed function shows its message", async () => {
    fail = async () => {
      throw new Error('crash');
    };
    expect(await list()).toMatchObject({ code: 1, stderr: 'Error: 502: Internal Server Error\n' });
  });

  test('a body that is not JSON is shown, clipped', async () => {
    fail = async () => ({ statusCode: 500, body: `<html>${'x'.repeat(1000)}</html>` });
    const run = await list();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: 500: <html>x+…\n$/);
    expect(run.stderr.length).toBeLessThan(400);
  });
});

describe('an API that answers hostile records: nothing of them reaches the terminal raw', () => {
  let host: FunctionUrlHost;
  let current: ApprovalRecord;
  const HOSTILE_ERROR = { type: 'not_found\u001b[31m', message: 'approval \u202eevil\nError: 200 approved\u0007' };
  beforeAll(async () => {
    host = await startFunctionUrlHost({
      credentials: { [ALICE.accessKeyId]: { secretAccessKey: ALICE.secretAccessKey, userArn: ALICE.userArn } },
      handler: async (event) => {
        const path = decodeURIComponent(event.rawPath);
        const reply = (statusCode: number, body: unknown) => ({ statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (path === '/approvals') return reply(200, { approvals: [HOSTILE, { ...HOSTILE, status: 'pending' }] });
        if (path === `/approvals/${HOSTILE.approval_id}`) return reply(200, current);
        if (path === `/approvals/${HOSTILE.approval_id}/decision`) return reply(200, { ...HOSTILE, status: 'approved' });
        return reply(404, { error: HOSTILE_ERROR });
      },
    });
  });
  beforeEach(() => {
    current = HOSTILE;
  });
  afterAll(() => host.close());
  const cli = (args: readonly string[], options: { tty?: boolean; input?: string } = {}) =>
    runCli(['approvals', ...args, '--url', host.url], { env: credentialsEnv(ALICE.accessKeyId, ALICE.secretAccessKey), ...options });

  test('list and show, as text and as JSON (which still parses to the same values)', async () => {
    for (const args of [['list'], ['show', HOSTILE.approval_id]]) {
      const run = await cli(args);
      expect(run.code).toBe(0);
      expectSafe(run.stdout + run.stderr);
      expect(run.stdout).toContain('send_email\\u{200b}\\u{2066}');
    }
    const list = await cli(['list', '--json']);
    expectSafe(list.stdout);
    expect(JSON.parse(list.stdout)).toEqual({ approvals: [HOSTILE, { ...HOSTILE, status: 'pending' }] });
    const show = await cli(['show', HOSTILE.approval_id, '--json']);
    expectSafe(show.stdout);
    expect(JSON.parse(show.stdout)).toEqual(HOSTILE);
  });

  test('approve: the details, the question and the answer are escaped', async () => {
    current = { ...HOSTILE, status: 'pending' };
    const run = await cli(['approve', HOSTILE.approval_id], { tty: true, input: 'y\n' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expectSafe(run.stdout);
    expect(run.stdout).toContain('Approve tool send_email\\u{200b}\\u{2066} for approval apr_\\x9b31mX? [y/N] ');
    expect(run.stdout).toContain('Reason:      \\x1b[2J\\x1b[31mAPPROVED\\u{202e}\n');
    expect(run.stdout).toContain('Approved apr_\\x9b31mX, tool send_email\\u{200b}\\u{2066} as arn:aws:iam::1:user/\\x1b[2K\\rmallory\\nStatus:      approved');
    const json = await cli(['approve', HOSTILE.approval_id, '--yes', '--json']);
    expectSafe(json.stdout + json.stderr);
    expect(JSON.parse(json.stdout)).toEqual({ ...HOSTILE, status: 'approved' });
  });

  test('an approval decided before: the error names who decided, escaped, on one line', async () => {
    const run = await cli(['deny', HOSTILE.approval_id, '--yes']);
    expect(run.code).toBe(1);
    expectSafe(run.stdout + run.stderr);
    expect(run.stderr).toBe('Error: Approval apr_\\x9b31mX is denied by arn:aws:iam::1:user/\\x1b[2K\\rmallory\\nStatus:      approved at 2026-12-02 16:00:00Z, not pending: nothing to decide.\n');
    expect(run.stdout.split('\n').filter((line) => line.startsWith('Status:'))).toEqual(['Status:      denied']);
  });

  test("the API's error type and message are escaped, as text and as JSON", async () => {
    const run = await cli(['show', 'apr_missing']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error: 404 not_found\\x1b[31m: approval \\u{202e}evil\\nError: 200 approved\\x07\n');
    const json = await cli(['show', 'apr_missing', '--json']);
    expectSafe(json.stderr);
    expect(JSON.parse(json.stderr)).toEqual({ error: { status: 404, ...HOSTILE_ERROR } });
  });
});

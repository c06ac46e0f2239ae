import { startFunctionUrlHost, type FunctionUrlHost } from '../support/function-url-host';
import { ALICE, describeCliContract } from './cli-contract';
import { credentialsEnv, runCli } from './harness';
import { memoryApprovalsApi } from './memory-approvals-api';

describeCliContract('the in-memory approvals API', async () => {
  // Pages of at most 3, below the CLI's limit: a page may hold fewer than `limit` (SPEC §9).
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

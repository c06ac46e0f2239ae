/** The command line itself: help, usage errors and their exit code 2, before any request. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bareEnv, runCli } from './harness';

const run = (argv: string[]) => runCli(argv, { env: bareEnv() });

test.each([
  [['--help'], 'Usage: cdk-tool-handler <command>'],
  [['approvals', '--help'], 'cdk-tool-handler approvals list'],
  [['approvals', 'approve', '--help'], 'Exit codes:'],
  [['local', '--help'], 'cdk-tool-handler local demo'],
])('%j prints help and exits 0', async (argv, text) => {
  const result = await run(argv);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(text);
  expect(result.stderr).toBe('');
});

test('help documents the options and exit codes', async () => {
  const { stdout } = await run(['approvals', '--help']);
  for (const option of ['--url', '--stack', '--output', '--region', '--status', '--reason', '--yes', '--json']) expect(stdout).toContain(option);
  expect(stdout).toMatch(/0 {2}done/);
  expect(stdout).toMatch(/1 {2}the request failed/);
  expect(stdout).toMatch(/2 {2}bad usage/);
  expect(stdout).toContain('AWS_PROFILE');
  expect(stdout).toContain('grantApprove');
});

test.each([
  [[], 'Missing command'],
  [['approve'], 'Unknown command `approve`'],
  [['approvals'], 'Missing subcommand'],
  [['approvals', 'lsit', '--url', 'https://x.lambda-url.us-east-1.on.aws/'], 'Unknown subcommand `lsit`'],
  [['approvals', 'list'], 'Pass --url URL, or --stack NAME'],
  [['approvals', 'show', '--url', 'https://x.lambda-url.us-east-1.on.aws/'], '`show` needs the approval\'s ID'],
  [['approvals', 'show', 'a', 'b', '--url', 'https://x.lambda-url.us-east-1.on.aws/'], 'takes one ID, got also: b'],
  [['approvals', 'list', '--url', 'u', '--stack', 's'], 'either --url or --stack'],
  [['approvals', 'list', '--url', 'u', '--output', 'o'], '--output goes with --stack'],
  [['approvals', 'list', '--status', 'done', '--url', 'u'], '--status must be one of pending, approved, denied, expired, got: done'],
  [['approvals', 'list', '--page-size', '0', '--url', 'u'], '--page-size must be an integer from 1 to 100'],
  [['approvals', 'show', 'x', '--reason', 'r', '--url', 'u'], '--reason is only for `approve` and `deny`'],
  [['approvals', 'list', '--yes', '--url', 'u'], '--yes is only for `approve` and `deny`'],
  [['approvals', 'approve', 'x', '--status', 'pending', '--url', 'u'], '--status is only for `list`'],
  [['approvals', 'list', '--bogus'], "Unknown option '--bogus'"],
  [['approvals', 'list', '--region', 'mars', '--url', 'u'], '--region must be a region name'],
  [['approvals', 'list', '--local', '--url', 'u'], '--local goes alone'],
  [['local', '--app', 'x', '--assembly', 'y'], 'either --app or --assembly'],
  [['local', '--bogus'], "Unknown option '--bogus'"],
  [['local', '--once', '{not json'], 'Envelope 1 is not JSON'],
  [['local', 'demo', '{}'], '`local demo` takes no envelopes'],
  [['local', '--expire-every', '0'], '--expire-every must be a number of seconds'],
])('%j is bad usage (exit 2)', async (argv, message) => {
  const result = await run(argv);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(message);
  expect(result.stderr).toContain('--help');
});

test.each([
  ['not a url', '--url is not a URL'],
  ['http://example.com/', 'must be https'],
  ['https://x.lambda-url.us-east-1.on.aws/?a=b', 'no query or fragment'],
])('--url %s is refused before credentials are looked for', async (url, message) => {
  const result = await run(['approvals', 'list', '--url', url]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(message);
});

test('--json errors are JSON on stderr', async () => {
  const result = await run(['approvals', 'list', '--json', '--status', 'nope', '--url', 'u']);
  expect(result.code).toBe(2);
  expect(JSON.parse(result.stderr)).toEqual({ error: { type: 'usage', message: expect.stringContaining('--status must be one of') } });
});

test('an unreachable URL is a clear failure (exit 1)', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve)); // nobody listens there now
  const result = await runCli(['approvals', 'list', '--url', `http://127.0.0.1:${port}/`], {
    env: { ...bareEnv(), AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 's' },
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`Could not reach the approvals API at http://127.0.0.1:${port}: ECONNREFUSED`);
});

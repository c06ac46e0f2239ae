/** `local --mcp [--port N]` on the command line: what it takes, what it refuses (exit 2), and its help. */
import { parseLocalCommand } from '../../cli/local-args';
import { DEFAULT_MCP_PORT } from '../../local/mcp-server';
import { bareEnv, runCli } from './harness';

const run = (argv: string[]) => runCli(argv, { env: bareEnv() });

test.each([
  [['local', '--port', '9000'], "--port is the MCP server's port: it needs --mcp."],
  [['local', '--mcp', '--once'], '--mcp serves until Ctrl-C: it cannot be used with `local demo` or --once.'],
  [['local', 'demo', '--mcp'], '--mcp serves until Ctrl-C'],
  [['local', '--mcp', '--port', '65536'], '--port must be a port number from 0 (any free port) to 65535, got: 65536.'],
  [['local', '--mcp', '--port', '1.5'], '--port must be a port number'],
  [['local', '--mcp', '--port', 'http'], '--port must be a port number'],
])('%j is bad usage (exit 2)', async (argv, message) => {
  const result = await run(argv);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(message);
});

test('--mcp and --port reach the local command; without --port the default port is the command\'s', () => {
  expect(parseLocalCommand(['--mcp', '--port', '0'])).toMatchObject({ kind: 'local', mcp: true, port: 0 });
  expect(parseLocalCommand(['--mcp'])).toMatchObject({ mcp: true, port: undefined });
  expect(parseLocalCommand([])).toMatchObject({ mcp: false, port: undefined });
});

test('local --help documents --mcp and --port, with the default port the command uses', async () => {
  const { stdout } = await run(['local', '--help']);
  expect(stdout).toContain('cdk-tool-handler local --mcp [--port N]');
  expect(stdout).toContain('http://127.0.0.1:<port>/mcp');
  expect(stdout).toContain(`--port N           The MCP server's port (default ${DEFAULT_MCP_PORT}; 0 picks a free one)`);
});

/**
 * Call log lines are written as calls end: a handler killed mid-batch has
 * already written the lines of the calls that finished, and a tool's own output sits next to its
 * call line (the killed handler runs in a child `node` process, bundled here with esbuild). The
 * calls that end in one JavaScript turn share one write, and nothing is left unwritten when an
 * invocation returns.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { tool, toolHandler } from '../../lambda';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/events';

const REPO = path.join(__dirname, '..', '..');

/** The handler: `echo` prints a line of its own and returns; `die` kills the process at once. */
const CHILD_SOURCE = `
import { tool, toolHandler } from ${JSON.stringify(path.join(REPO, 'lambda', 'index.ts'))};
const echo = tool({
  name: 'echo',
  run: (args) => {
    process.stdout.write('own output of ' + args.n + '\\n');
    return args.n;
  },
});
const die = tool({ name: 'die', run: () => process.kill(process.pid, 'SIGKILL') });
const handler = toolHandler([echo, die], { concurrency: 1, replies: false });
const end = Date.now() + 10000;
handler(JSON.parse(process.argv[2]), { awsRequestId: 'req-1', getRemainingTimeInMillis: () => end - Date.now() });
`;

function bundleChild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-lines-'));
  const outfile = path.join(dir, 'child.js');
  buildSync({
    stdin: { contents: CHILD_SOURCE, resolveDir: REPO, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

function runChild(script: string, event: unknown): Promise<{ stdout: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    // No TOOL_HANDLER_* variables: no approval store, no duplicate suppression, no reply bus.
    const child = spawn(process.execPath, [script, JSON.stringify(event)], {
      env: { PATH: process.env.PATH, NODE_PATH: path.join(REPO, 'node_modules') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve({ stdout, signal }));
  });
}

test('a handler killed mid-batch has already written the log lines of the calls that finished', async () => {
  const event = sqsEvent(
    sqsRecord('first', { tool: 'echo', args: { n: 1 } }),
    sqsRecord('second', { tool: 'echo', args: { n: 2 } }),
    sqsRecord('killer', { tool: 'die' }),
    sqsRecord('never', { tool: 'echo', args: { n: 3 } }),
  );
  const { stdout, signal } = await runChild(bundleChild(), event);
  expect(signal).toBe('SIGKILL');
  const lines = stdout.split('\n').filter((line) => line.length > 0);
  // Each call line right after the tool's own output, in the order the calls ran.
  expect(lines.map((line) => (line.startsWith('{') ? JSON.parse(line) : line))).toEqual([
    'own output of 1',
    expect.objectContaining({ level: 'INFO', message: 'tool call', tool: 'echo', message_id: 'first', status: 'ok' }),
    'own output of 2',
    expect.objectContaining({ level: 'INFO', message: 'tool call', tool: 'echo', message_id: 'second', status: 'ok' }),
  ]);
}, 20_000);

describe('writes', () => {
  const writes: string[] = [];
  let spy: jest.SpyInstance;
  beforeEach(() => {
    writes.length = 0;
    spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
  });
  afterEach(() => spy.mockRestore());

  const noop = tool({ name: 'noop', run: () => null });
  const tenCalls = () => sqsEvent(...Array.from({ length: 10 }, (_, i) => sqsRecord(`m${i}`, { tool: 'noop', args: {} })));
  const callLines = () => writes.join('').split('\n').filter((line) => line.includes('"tool call"'));

  test('ten calls that end in the same turn go out in one write, before the invocation returns', async () => {
    const handler = toolHandler([noop], { replies: false });
    await expect(handler(tenCalls(), lambdaContext(30_000))).resolves.toEqual({ batchItemFailures: [] });
    // Read before any later turn: Lambda may freeze the process as soon as the handler returns.
    expect(writes).toHaveLength(1);
    expect(callLines()).toHaveLength(10);
  });

  test('two handlers running at once in one process: every line is out when both have returned, none left for a later turn', async () => {
    const first = toolHandler([noop], { replies: false });
    const second = toolHandler([noop], { replies: false });
    await Promise.all([first(tenCalls(), lambdaContext(30_000)), second(tenCalls(), lambdaContext(30_000))]);
    expect(callLines()).toHaveLength(20);
    writes.length = 0;
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([]);
  });
});

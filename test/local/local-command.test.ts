/**
 * `cdk-tool-handler local` on the sample's synthesized assembly: the real bundles (handler, engine,
 * API) in workers against dynalite, envelopes as an SQS batch or direct invokes, replies and
 * reply-bus events printed for people and as JSON lines.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expectSafe } from '../cli/hostile';
import { editedAssembly, local, synthesizeSample, removeMade } from './sample-assembly';

afterAll(removeMade);

let assembly: string;

beforeAll(() => {
  assembly = synthesizeSample();
}, 120_000);

const add = JSON.stringify({ tool: 'add', args: { a: 1, b: 2 } });
const refund = JSON.stringify({ tool: 'refund', args: { orderId: 'o-1' } });

test('sends the envelopes as one SQS batch and prints each call and its reply from the reply bus', async () => {
  const result = await local(['local', '--assembly', assembly, '--once', add, refund]);
  expect(result.code).toBe(0);
  const lines = result.stdout.split('\n');
  expect(lines[0]).toMatch(/^ready: stack ToolHandlerSample, approvals API http:\/\/127\.0\.0\.1:\d+\/$/);
  expect(lines).toContain('→ call add {"a":1,"b":2}');
  expect(lines).toContain('→ call refund {"orderId":"o-1"}');
  expect(lines).toContain('← ok add result 3   [bus: Tool Call Succeeded]');
  expect(result.stdout).toMatch(/^← pending_approval refund apr_\S+ \(expires \S+\)   \[bus: Tool Approval Requested\]$/m);
  // The sample has no reply bus: local says it gives one.
  expect(result.stderr).toContain('the stack has no reply bus; local gives the functions one');
}, 60_000);

test('--direct invokes the handler with each envelope: each reply, or each thrown error, printed once', async () => {
  const bad = JSON.stringify({ tool: 'add', args: { a: 1, b: 'x' } });
  const result = await local(['local', '--assembly', assembly, '--once', '--direct', add, bad]);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('→ call add {"a":1,"b":2} (direct)');
  const answers = result.stdout.split('\n').filter((line) => line.startsWith('←'));
  // The reply bus carried both outcomes before the invokes returned: its lines are the only ones.
  expect(answers).toEqual([
    '← ok add result 3   [bus: Tool Call Succeeded]',
    expect.stringMatching(/^← error ToolUsageError add: Invalid args for tool add: `args\.b`.*\[bus: Tool Call Failed\]$/),
  ]);

  // --json keeps every line, the direct ones marked as shown.
  const json = await local(['local', '--assembly', assembly, '--once', '--direct', '--json', add, bad]);
  const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(lines).toContainEqual(expect.objectContaining({ type: 'reply', via: 'direct', shown: true, reply: expect.objectContaining({ result: 3 }) }));
  expect(lines).toContainEqual(expect.objectContaining({ type: 'thrown', shown: true, error: expect.objectContaining({ errorType: 'ToolUsageError' }) }));
}, 60_000);

test('--json prints one JSON object per line; --file reads a JSON array of envelopes', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'envelopes-')), 'calls.json');
  fs.writeFileSync(file, JSON.stringify([{ tool: 'add', args: { a: 20, b: 22 }, run_id: 'r1', call_id: 'c1' }, { tool: 'nope', args: {} }]));
  const result = await local(['local', '--assembly', assembly, '--once', '--json', '--file', file]);
  expect(result.code).toBe(0);
  const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(lines).toContainEqual(expect.objectContaining({ type: 'ready', stack: 'ToolHandlerSample', functions: expect.objectContaining({ handler: expect.any(String), engine: expect.any(String), api: expect.any(String) }) }));
  expect(lines).toContainEqual({ type: 'call', via: 'sqs', envelope: { tool: 'add', args: { a: 20, b: 22 }, run_id: 'r1', call_id: 'c1' } });
  expect(lines).toContainEqual({
    type: 'reply',
    via: 'bus',
    detail_type: 'Tool Call Succeeded',
    reply: expect.objectContaining({ status: 'ok', tool: 'add', run_id: 'r1', call_id: 'c1', result: 42 }),
  });
  expect(lines).toContainEqual(
    expect.objectContaining({ type: 'reply', detail_type: 'Tool Call Failed', reply: expect.objectContaining({ error: expect.objectContaining({ type: 'ToolNotFound' }) }) }),
  );
}, 60_000);

test('--json escapes control and format characters, and each line still parses to what was sent', async () => {
  const args = { a: 1, b: 2, note: 'x\u202eevil\u009b31m\u200b\u0007' };
  const result = await local(['local', '--assembly', assembly, '--once', '--json', JSON.stringify({ tool: 'add', args })]);
  expect(result.code).toBe(0);
  expectSafe(result.stdout);
  const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(lines).toContainEqual(expect.objectContaining({ type: 'call', envelope: expect.objectContaining({ args }) }));
}, 60_000);

test('--app naming a cloud assembly runs it without synthesizing', async () => {
  const result = await local(['local', '--app', assembly, '--once', add]);
  expect(result.code).toBe(0);
  expect(result.stderr).not.toContain('synthesizing');
  expect(result.stdout).toContain('← ok add result 3');
});

test('--logs prints the functions\' own log lines on stderr', async () => {
  const result = await local(['local', '--assembly', assembly, '--once', '--logs', add]);
  expect(result.code).toBe(0);
  expect(result.stderr).toMatch(/^log\(handler\): \{.*"message":"tool call"/m);
});

test('a missing assembly, a stack without a ToolHandler, and a missing cdk.json are clear errors', async () => {
  const missing = await local(['local', '--assembly', '/no/such/dir', '--once']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('--assembly /no/such/dir does not exist');

  // A stack whose metadata describes no ToolHandler (the construct describes its parts there).
  const noHandler = editedAssembly(assembly, () => undefined);
  for (const name of fs.readdirSync(noHandler).filter((n) => n.endsWith('.metadata.json'))) {
    const file = path.join(noHandler, name);
    const metadata = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const entries of Object.values<any[]>(metadata)) entries.splice(0, entries.length, ...entries.filter((e) => e.type !== 'cdk-tool-handler:parts'));
    fs.writeFileSync(file, JSON.stringify(metadata));
  }
  const none = await local(['local', '--assembly', noHandler, '--once']);
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('has a ToolHandler');

  const cwd = process.cwd();
  process.chdir(fs.mkdtempSync(path.join(os.tmpdir(), 'no-app-')));
  try {
    const noApp = await local(['local', '--once']);
    expect(noApp.code).toBe(1);
    expect(noApp.stderr).toContain('no cdk.json here');
  } finally {
    process.chdir(cwd);
  }
});

test('approvals --local without a running local says how to start one', async () => {
  const state = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'state-')), 'none.json');
  const result = await local(['approvals', 'list', '--local'], { ...process.env, CDK_TOOL_HANDLER_LOCAL_STATE: state });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('No local run found here or in a folder above: start `cdk-tool-handler local` in your app');
});

/**
 * `cdk-tool-handler local --calls FILE --approve all|none` on the sample's synthesized assembly (the
 * real bundles against dynalite): each line an envelope, every approval decided through the local
 * API as the run's approver, the resume run by the resume path, one result line per call, and an exit
 * code that says whether every call ended as asked.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { local, removeMade, synthesizeSample, synthesizeSlowTools } from './sample-assembly';

afterAll(removeMade);

let assembly: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-calls-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  assembly = synthesizeSample();
}, 120_000);

/** A FILE of `lines` (one envelope each, as written). */
function callsFile(name: string, lines: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const ADD = JSON.stringify({ tool: 'add', args: { a: 1, b: 2 } });
const REFUND = (orderId: string, callId: string) => JSON.stringify({ tool: 'refund', args: { orderId }, run_id: 'calls', call_id: callId });
const APPROVER = 'arn:aws:sts::000000000000:assumed-role/Approver/alice';

test('--approve all: each call in FILE order, the approval decided and resumed, its result as JSON; exit 0', async () => {
  const file = callsFile('approve-all.jsonl', [ADD, '', REFUND('o-1', 'c1')]);
  const result = await local(['local', '--assembly', assembly, '--calls', file, '--approve', 'all']);
  expect(result.code).toBe(0);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toBe('1 add ok 3');
  expect(lines[1]).toMatch(/^3 refund ok \{"refunded":"o-1"\} \(apr_\S+ approved\)$/);
  // The run's own lines (the call, the decision through the API as the approver, the resume) are on stderr.
  const id = /\((apr_\S+) approved\)/.exec(lines[1])![1];
  expect(result.stderr).toContain(`api: ${id} approved by ${APPROVER}`);
  expect(result.stderr).toContain(`→ resume ${id}`);
  expect(result.stderr).toContain('calls: 2 of 2 ended as asked.');
}, 60_000);

test('--approve none: the approval is denied and the call ends ApprovalDenied, as asked; exit 0', async () => {
  const file = callsFile('approve-none.jsonl', [REFUND('o-2', 'c2'), ADD]);
  const result = await local(['local', '--assembly', assembly, '--calls', file, '--approve', 'none']);
  expect(result.code).toBe(0);
  const [refund, add] = result.stdout.trimEnd().split('\n');
  expect(refund).toMatch(/^1 refund ApprovalDenied \(apr_\S+ denied\): /);
  expect(add).toBe('2 add ok 3');
}, 60_000);

test('without --approve a call that needs approval ends pending_approval; a failed call ends with its error type; exit 1', async () => {
  const file = callsFile('undecided.jsonl', [REFUND('o-3', 'c3'), JSON.stringify({ tool: 'nope', args: {} }), JSON.stringify({ tool: 'add', args: { a: 'x' } })]);
  const result = await local(['local', '--assembly', assembly, '--calls', file]);
  expect(result.code).toBe(1);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^1 refund pending_approval \(apr_\S+ undecided\): undecided: pass --approve all or --approve none to decide it$/);
  expect(lines[1]).toMatch(/^2 nope ToolNotFound: Tool nope is unknown to this handler or not in its allowlist\. It runs: add, refund\.$/);
  expect(lines[2]).toMatch(/^3 add ToolUsageError: Invalid args for tool add: `args\.a`/);
  expect(result.stderr).toContain('calls: 0 of 3 ended as asked, 3 did not.');
}, 60_000);

test('--json: one object per call on stdout, nothing else there', async () => {
  const file = callsFile('json.jsonl', [ADD, REFUND('o-4', 'c4')]);
  const result = await local(['local', '--assembly', assembly, '--calls', file, '--approve', 'all', '--json']);
  expect(result.code).toBe(0);
  const objects = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
  expect(objects).toEqual([
    expect.objectContaining({ type: 'call_result', line: 1, tool: 'add', ended: 'ok', result: 3, expected: true, run_id: expect.any(String) }),
    expect.objectContaining({
      type: 'call_result',
      line: 2,
      tool: 'refund',
      run_id: 'calls',
      call_id: 'c4',
      approval_id: expect.stringMatching(/^apr_/),
      decision: 'approved',
      ended: 'ok',
      result: { refunded: 'o-4' },
      expected: true,
    }),
  ]);
}, 60_000);

test('two lines of the same call share one approval: decided once, both end with its result', async () => {
  const file = callsFile('twice.jsonl', [REFUND('o-5', 'c5'), REFUND('o-5', 'c5')]);
  const result = await local(['local', '--assembly', assembly, '--calls', file, '--approve', 'all']);
  expect(result.code).toBe(0);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^1 refund ok \{"refunded":"o-5"\} \(apr_\S+ approved\)$/);
  expect(lines[1]).toBe(lines[0].replace(/^1/, '2'));
  expect(result.stderr.match(/^api: apr_\S+ approved/gm)).toHaveLength(1);
}, 60_000);

test('a call that outlasts --timeout ends timeout; exit 1', async () => {
  const outdir = synthesizeSlowTools(Duration.seconds(20));
  const file = callsFile('slow.jsonl', [JSON.stringify({ tool: 'slow', args: { ms: 20_000 } }), JSON.stringify({ tool: 'slow', args: { ms: 0 } })]);
  const started = Date.now();
  const result = await local(['local', '--assembly', outdir, '--calls', file, '--timeout', '1']);
  expect(result.code).toBe(1);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe('1 slow timeout: no last reply within 1 s');
  expect(lines[1]).toMatch(/^2 slow (ok "done"|timeout: no last reply within 1 s)$/);
  // A run that waited for the 20 s tool after printing its timeout would take longer than this.
  expect(Date.now() - started).toBeLessThan(15_000);
}, 60_000);

describe('usage', () => {
  test.each([
    [['--approve', 'all'], '--approve goes with --calls FILE'],
    [['--timeout', '5'], '--timeout goes with --calls FILE'],
    [['--calls', 'x.jsonl', '--approve', 'some'], '--approve must be all or none, got: some.'],
    [['--calls', 'x.jsonl', '--timeout', '0'], '--timeout must be a number of seconds from 1 to 3600, got: 0.'],
    [['--calls', 'x.jsonl', ADD], '--calls takes its envelopes from its FILE only'],
    [['demo', '--calls', 'x.jsonl'], '--calls takes its envelopes from its FILE only'],
  ])('%j', async (args, message) => {
    const result = await local(['local', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  test('a line that is not JSON is named by its number, before anything starts', async () => {
    const file = callsFile('bad.jsonl', [ADD, '{"tool": "add",']);
    const result = await local(['local', '--assembly', assembly, '--calls', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--calls ${file}: line 2 is not JSON`);
    expect(result.stderr).not.toContain('ready:');
  });

  test('local --help says what --calls does and what the run needs installed', async () => {
    const help = await local(['local', '--help']);
    expect(help.stdout).toContain('--calls FILE');
    expect(help.stdout).toContain('LINE TOOL ENDED [RESULT_JSON] [(APPROVAL_ID DECISION)][: MESSAGE]');
    expect(help.stdout).toContain('optional peer');
    expect(help.stdout).not.toContain("this package's\nown dependencies");
    expect(help.stdout).toMatch(/^ {2}dynalite {11}the embedded DynamoDB$/m);
  });
});

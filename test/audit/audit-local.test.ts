/**
 * The local run's audit records, as a user sees them: the one-file CLI build running `local` on the
 * sample in a child `node`, serving; each audit record its functions write is printed as an
 * `audit:` line and kept in a private file beside the run's state file, which
 * `cdk-tool-handler audit --local` (in-process) reads, with the same filters as in the cloud; the
 * file goes when the run stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { formatAuditRecord, type AuditRecord } from '../../console/audit-record';
import type { AuditFields } from '../../lambda/audit';
import { cliFixture, local, REPO, removeMade, synthesizeSample } from '../local/sample-assembly';
import { until } from '../support/until';

afterAll(removeMade);

const { bundle, stateFile, env, build } = cliFixture();
const auditFile = stateFile.replace(/\.json$/, '.audit.jsonl');

let assembly: string;
let child: ChildProcess | undefined;
let stdout = '';
let stderr = '';
const printed = () => ({ stdout, stderr });

/** Every field of `AuditFields` but a decision's own two. */
const FIELDS: ReadonlyArray<keyof AuditFields> = [
  'record', 'time', 'owner', 'event', 'gen_ai.tool.name', 'gen_ai.tool.call.id', 'run_id', 'approval_id', 'enduser.id',
  'caller.kind', 'caller.verified', 'source', 'outcome', 'duration_ms', 'args_sha256', 'trace_id', 'message_id',
];

beforeAll(async () => {
  assembly = synthesizeSample();
  await build();
}, 120_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

const auditLines = () => stdout.split('\n').filter((line) => line.startsWith('audit: '));
const records = async (args: string[] = []): Promise<AuditRecord[]> => {
  const run = await local(['audit', '--local', '--json', ...args], env);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout.trimEnd().split('\n').filter(Boolean).map((line) => JSON.parse(line));
};

test('prints each audit record as it is written, keeps it for `audit --local`, and removes the file when it stops', async () => {
  // A file left at the audit file's path before the run: never read as the run's, never appended to.
  fs.writeFileSync(auditFile, `${JSON.stringify({ record: 'audit', time: new Date().toISOString(), event: 'call', 'gen_ai.tool.name': 'planted', outcome: 'ok' })}\n`, { mode: 0o600 });
  const calls = [
    { tool: 'add', args: { a: 1, b: 2 }, run_id: 'local-audit', call_id: 'add-1' },
    { tool: 'refund', args: { orderId: 'o-local' }, run_id: 'local-audit', call_id: 'refund-1' },
    { tool: 'add', args: { a: 'not a number', b: 2 }, run_id: 'local-audit', call_id: 'add-bad' },
  ];
  child = spawn(process.execPath, [bundle, 'local', '--assembly', assembly, ...calls.map((c) => JSON.stringify(c))], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await until(() => stderr.includes('serving: decide with') && auditLines().length >= 3, 'serving, with three audit lines', printed, { ms: 30_000 });

  // The file: private, beside the state file, named in it.
  expect(JSON.parse(fs.readFileSync(stateFile, 'utf8')).audit).toBe(auditFile);
  expect(fs.statSync(auditFile).mode & 0o777).toBe(0o600);

  const first = await records();
  // One SQS batch: the record refused for its args is settled before the others run, so its record comes first.
  const calls3 = (list: AuditRecord[]) => list.map((r) => `${r['gen_ai.tool.call.id']} ${r.outcome}`);
  expect(calls3(first).sort()).toEqual(['add-1 ok', 'add-bad ToolUsageError', 'refund-1 pending_approval']);
  expect(first.some((r) => r['gen_ai.tool.name'] === 'planted')).toBe(false);
  // Printed as written: one `audit:` line per record, the same line `audit --local` prints for people.
  expect([...auditLines()].sort()).toEqual(first.map((r) => `audit: ${formatAuditRecord(r)}`).sort());
  const people = await local(['audit', '--local'], env);
  expect(people.stdout.trimEnd().split('\n')).toEqual(first.map(formatAuditRecord));

  // A decision through `approvals --local`, and the resume it starts: their records follow.
  const approvalId = first.find((r) => r.outcome === 'pending_approval')!.approval_id as string;
  const approve = await local(['approvals', 'approve', approvalId, '--local', '--yes'], env);
  expect(approve.code).toBe(0);
  await until(() => auditLines().length >= 5, 'the decision\'s and the resume\'s audit lines', printed, { ms: 20_000 });
  const all = await records();
  expect(all.slice(0, 3)).toEqual(first);
  expect(calls3(all.slice(3))).toEqual(['refund-1 approved', 'refund-1 ok']);
  expect(all[3]).toMatchObject({ event: 'decision', decided_by: 'arn:aws:sts::000000000000:assumed-role/Approver/alice' });

  // The schema of every record: every field at the top level, the mark, `time` ISO 8601.
  for (const record of all) {
    for (const field of FIELDS) expect({ field, present: field in record }).toEqual({ field, present: true });
    expect(record.record).toBe('audit');
    expect(new Date(record.time as string).toISOString()).toBe(record.time);
  }
  // What `--json` prints is each line of the file, unchanged.
  expect(all.map((r) => JSON.stringify(r))).toEqual(fs.readFileSync(auditFile, 'utf8').trimEnd().split('\n'));
  // No args value in a record.
  for (const value of ['o-local', 'not a number']) expect(fs.readFileSync(auditFile, 'utf8')).not.toContain(value);

  // The same filters as in the cloud.
  expect((await records(['--tool', 'add'])).map((r) => r['gen_ai.tool.call.id']).sort()).toEqual(['add-1', 'add-bad']);
  expect((await records(['--approval', approvalId])).map((r) => `${r.event} ${r.outcome}`)).toEqual(['call pending_approval', 'decision approved', 'call ok']);
  expect((await records(['--caller', 'local'])).length).toBe(all.filter((r) => r['enduser.id'] === 'local').length);
  expect(await records(['--caller', 'nobody'])).toEqual([]);
  expect(await records(['--since', new Date(Date.now() + 60_000).toISOString()])).toEqual([]);

  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(fs.existsSync(auditFile)).toBe(false);
  expect(fs.existsSync(stateFile)).toBe(false);
  const after = await local(['audit', '--local'], env);
  expect(after.code).toBe(1);
  expect(after.stderr).toContain('No local run found');
}, 90_000);

test("the local run's own --json output carries each audit record as a line of type audit", async () => {
  const run = await local(['local', '--assembly', assembly, '--once', '--json', JSON.stringify({ tool: 'add', args: { a: 2, b: 2 } })]);
  expect(run.code).toBe(0);
  const lines = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
  const audit = lines.filter((line) => line.type === 'audit');
  expect(audit).toEqual([{ type: 'audit', function: 'handler', record: expect.objectContaining({ record: 'audit', event: 'call', outcome: 'ok', 'gen_ai.tool.name': 'add' }) }]);
}, 60_000);

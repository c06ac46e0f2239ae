/**
 * `cdk-tool-handler audit --stack`: the CLI in-process (and its one-file bundle once), against a
 * CloudFormation stand-in holding the sample's synthesized template (test/cli/cloudformation-stub.ts)
 * and a CloudWatch Logs stand-in (test/support/cloudwatch-logs.ts) whose log groups hold every line
 * the real bundles wrote in a run of the sample (test/support/audit-lines.ts), audit records and
 * others alike. It finds the handler's, the API's and the expirer's log groups from the template,
 * asks FilterLogEvents with the audit pattern, and prints exactly the records, filtered, newest last.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { auditLogGroupsOf } from '../../cli/audit-log-groups';
import { ToolHandler } from '../../lib';
import { MISSING_CREDENTIALS_HELP } from '../../cli/credentials';
import { startCloudFormationStub, type CloudFormationStub } from '../cli/cloudformation-stub';
import { bareEnv, credentialsEnv, runCli } from '../cli/harness';
import { expectSafe } from '../cli/hostile';
import { ENTRY } from '../construct/helpers';
import { runSampleForLines, SECRET_ARGS, type SampleRun } from '../support/audit-lines';
import { startCloudWatchLogsStandIn, type CloudWatchLogsStandIn, type StoredEvent } from '../support/cloudwatch-logs';

const exec = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const STACK = 'ToolHandlerSample';

let sample: SampleRun;
let cfn: CloudFormationStub;
let logsStandIn: CloudWatchLogsStandIn;
let hostileLogs: CloudWatchLogsStandIn;
/** The log group of each function label, as the stand-ins name them. */
const groupOf = new Map<string, string>();
/** The run's audit records, parsed, in the order written. */
let records: Array<Record<string, any>>;

const parse = (line: string): Record<string, any> | undefined => {
  try {
    const value = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
};

/** The stack's resources as `ListStackResources` gives them: log groups named `/test/<id>`, functions `fn-<id>`. */
function stackResources(template: any): Array<{ logicalId: string; physicalId: string; type: string }> {
  return Object.entries<any>(template.Resources).map(([logicalId, r]) => ({
    logicalId,
    type: r.Type,
    physicalId: r.Type === 'AWS::Logs::LogGroup' ? `/test/${logicalId}` : r.Type === 'AWS::Lambda::Function' ? `fn-${logicalId}` : `phys-${logicalId}`,
  }));
}

/** Each function's log group, by the label the local run gives it, from its tag and its LoggingConfig. */
function functionGroups(template: any): Map<string, string> {
  const labels: Record<string, string> = { 'tool-handler': 'handler', 'approvals-engine': 'engine', 'approvals-api': 'api', 'approvals-expirer': 'expirer' };
  const found = new Map<string, string>();
  for (const r of Object.values<any>(template.Resources)) {
    const part = (r.Properties?.Tags ?? []).find((t: any) => t.Key === 'cdk-tool-handler:function')?.Value;
    if (r.Type === 'AWS::Lambda::Function' && labels[part]) found.set(labels[part], `/test/${r.Properties.LoggingConfig.LogGroup.Ref}`);
  }
  return found;
}

/** The lines as stored events of each log group: at their record's time, or the time of the line before. */
function storedGroups(lines: ReadonlyArray<{ fn: string; line: string }>): Map<string, StoredEvent[]> {
  const groups = new Map<string, StoredEvent[]>([...groupOf.values()].map((g) => [g, []]));
  let last = Date.now() - 60_000;
  for (const { fn, line } of lines) {
    const time = Date.parse(parse(line)?.time ?? parse(line)?._aws?.Timestamp ?? '');
    last = Number.isNaN(time) ? last : time;
    groups.get(groupOf.get(fn)!)!.push({ timestamp: last, message: line });
  }
  return groups;
}

beforeAll(async () => {
  sample = await runSampleForLines();
  for (const [label, group] of functionGroups(sample.template)) groupOf.set(label, group);
  records = sample.lines.map(({ line }) => parse(line)).filter((r): r is Record<string, any> => r?.record === 'audit');
  logsStandIn = await startCloudWatchLogsStandIn(storedGroups(sample.lines), { pageSize: 4, denied: new Set(['/test/denied']) });
  const hostile = {
    record: 'audit',
    time: new Date().toISOString(),
    event: 'call',
    'gen_ai.tool.name': 'evil\u001b[31m\u202e',
    outcome: 'ok\r\nasked by admin',
    'enduser.id': 'mallory\u0085\u200b',
    'caller.verified': false,
    approval_id: 'apr_\u009b2J',
    decided_by: 'x\u2028y',
  };
  hostileLogs = await startCloudWatchLogsStandIn(new Map([...groupOf.values()].map((g) => [g, g === groupOf.get('handler') ? [{ timestamp: Date.now(), message: JSON.stringify(hostile) }] : []])));
  const withDenied = structuredClone(sample.template);
  const handlerFunction = Object.values<any>(withDenied.Resources).find((r) => (r.Properties?.Tags ?? []).some((t: any) => t.Value === 'tool-handler'));
  handlerFunction.Properties.LoggingConfig.LogGroup = '/test/denied';
  cfn = await startCloudFormationStub({
    [STACK]: { outputs: [], template: sample.template, resources: stackResources(sample.template) },
    Denied: { outputs: [], template: withDenied, resources: stackResources(withDenied) },
    NoHandler: { outputs: [], template: { Resources: { Bucket: { Type: 'AWS::S3::Bucket' } } }, resources: [] },
    Yaml: { outputs: [], template: 'Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n', resources: [] },
  });
}, 180_000);

afterAll(async () => {
  await Promise.all([cfn?.close(), logsStandIn?.close(), hostileLogs?.close()]);
});

const env = (logs = logsStandIn) => ({
  ...credentialsEnv('AKIDAUDITOR000000', 'auditor-secret', 'us-east-1'),
  AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.endpoint,
  AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: logs.endpoint,
});
const audit = (args: string[], logs?: CloudWatchLogsStandIn) => runCli(['audit', '--stack', STACK, ...args], { env: env(logs) });
const jsonLines = (stdout: string) => stdout.trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const byTime = (list: Array<Record<string, any>>) => [...list].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));

test('--json prints exactly the records the functions wrote, unchanged, newest last; no other line', async () => {
  const run = await audit(['--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(jsonLines(run.stdout)).toEqual(byTime(records));
  expect(records.length).toBeGreaterThanOrEqual(14);
  // Read from the handler's, the API's and the expirer's log groups, never the engine's; every page of each.
  const asked = logsStandIn.requests.filter((r) => r.body.filterPattern !== undefined);
  expect(new Set(asked.map((r) => r.body.logGroupName))).toEqual(new Set([groupOf.get('handler'), groupOf.get('api'), groupOf.get('expirer')]));
  expect(asked.every((r) => r.target === 'Logs_20140328.FilterLogEvents' && r.body.filterPattern === '{ $.record = "audit" }')).toBe(true);
  expect(asked.some((r) => r.body.nextToken !== undefined)).toBe(true);
  expect(asked.at(-1)!.authorization).toMatch(/Credential=AKIDAUDITOR000000\/\d{8}\/us-east-1\/logs\/aws4_request/);
});

test('for people: one line per record, with when, what, the tool, the outcome, who asked, the approval and who decided', async () => {
  const run = await audit([]);
  expect(run.code).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(records.length);
  for (const line of lines) {
    expect(line).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z {2}(call|decision|expiry) {2}\S+ {2}\S+ {2}(asked by \S+|no caller)( {2}approval apr_\S+)?( {2}decided by \S+)?$/);
  }
  expect(lines).toContainEqual(
    expect.stringMatching(
      new RegExp(`^\\S+ \\S+ {2}decision {2}refund {2}approved {2}asked by local {2}approval ${sample.approvedId} {2}decided by arn:aws:sts::000000000000:assumed-role/Approver/alice$`),
    ),
  );
  expect(lines).toContainEqual(expect.stringMatching(/ {2}expiry {2}refund {2}expired {2}asked by local {2}approval apr_/));
  expect(lines).toContainEqual(expect.stringMatching(/ {2}call {2}add {2}ToolUsageError {2}no caller$/));
});

test('--tool, --caller and --approval keep only the matching records; --approval narrows the pattern CloudWatch Logs applies', async () => {
  const tool = jsonLines((await audit(['--tool', 'add', '--json'])).stdout);
  expect(tool).toEqual(byTime(records.filter((r) => r['gen_ai.tool.name'] === 'add')));
  expect(tool.length).toBeGreaterThan(1);

  const caller = jsonLines((await audit(['--caller', 'local', '--json'])).stdout);
  expect(caller).toEqual(byTime(records.filter((r) => r['enduser.id'] === 'local')));
  expect(caller.length).toBeLessThan(records.length);

  const approval = jsonLines((await audit(['--approval', sample.approvedId, '--json'])).stdout);
  expect(approval.map((r) => `${r.event} ${r.outcome}`)).toEqual(['call pending_approval', 'decision approved', 'call ok', 'call already_done']);
  expect(logsStandIn.requests.at(-1)!.body.filterPattern).toBe(`{ $.record = "audit" && $.approval_id = "${sample.approvedId}" }`);

  const both = jsonLines((await audit(['--tool', 'refund', '--caller', 'local', '--approval', sample.approvedId, '--json'])).stdout);
  expect(both).toEqual(approval);
});

test('no record, and nothing else: says so for people, prints nothing with --json; both exit 0', async () => {
  const none = await audit(['--caller', 'nobody']);
  expect(none.code).toBe(0);
  expect(none.stdout).toMatch(/^No audit records since \d{4}-\d{2}-\d{2}T[\d:.]+Z\.\n$/);
  const later = new Date(Math.max(...records.map((r) => Date.parse(r.time))) + 1).toISOString();
  const json = await audit(['--since', later, '--json']);
  expect(json).toEqual({ code: 0, stdout: '', stderr: '' });
  expect(logsStandIn.requests.at(-1)!.body.startTime).toBe(Date.parse(later));
});

test('--since takes a duration back from now', async () => {
  const before = Date.now();
  await audit(['--since', '2h', '--json']);
  const start = logsStandIn.requests.at(-1)!.body.startTime;
  expect(start).toBeGreaterThanOrEqual(before - 2 * 3600_000 - 1000);
  expect(start).toBeLessThanOrEqual(Date.now() - 2 * 3600_000);
});

test('no args value of any call appears in what it prints', async () => {
  for (const args of [['--json'], []]) {
    const { stdout } = await audit(args);
    for (const secret of SECRET_ARGS) expect(stdout).not.toContain(secret);
  }
});

test('a record made to mislead is printed escaped, for people and as JSON, and the JSON still parses to it', async () => {
  const people = await audit([], hostileLogs);
  expect(people.code).toBe(0);
  expectSafe(people.stdout);
  expect(people.stdout.trimEnd().split('\n')).toHaveLength(1);
  expect(people.stdout).toContain('evil\\x1b[31m\\u{202e}');
  expect(people.stdout).toContain('ok\\r\\nasked by admin');
  expect(people.stdout).toContain('asked by mallory\\x85\\u{200b} (unverified)');
  const json = await audit(['--json'], hostileLogs);
  expectSafe(json.stdout);
  expect(jsonLines(json.stdout)[0]['gen_ai.tool.name']).toBe('evil\u001b[31m\u202e');
});

test('--output picks the ToolHandler whose approvals API the output holds', async () => {
  const key = Object.keys(sample.template.Outputs).find((k) => k.endsWith('ApprovalsApiUrl'))!;
  expect(jsonLines((await audit(['--output', key, '--json'])).stdout)).toEqual(byTime(records));
  const wrong = await audit(['--output', 'Nope']);
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toContain(`Stack ${STACK} has no output Nope ending in ApprovalsApiUrl; it has: ${key}.`);
});

describe('errors name what to fix, never a record\'s value', () => {
  test('no credentials', async () => {
    const run = await runCli(['audit', '--stack', STACK], { env: { ...bareEnv(), AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.endpoint } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(MISSING_CREDENTIALS_HELP.split('\n')[0]);
  });

  test.each([
    ['Ghost', 'Stack Ghost was not found'],
    ['NoHandler', 'Stack NoHandler has no function that writes audit records'],
    ['Yaml', 'The template of stack Yaml is not JSON'],
    ['Denied', "Not allowed to read the log group /test/denied of stack Denied (logs:FilterLogEvents): grant it with the construct's grantReadAudit"],
  ])('stack %s', async (stack, message) => {
    const run = await runCli(['audit', '--stack', stack], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    for (const record of records) expect(run.stderr).not.toContain(record.approval_id ?? 'no approval id');
  });

  test.each([
    [[], 'Pass --stack NAME'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['--stack', 's', '--since', 'yesterday'], '--since must be a duration back from now'],
    [['--stack', 's', '--since', '2026-13-45'], '--since must be a duration back from now'],
    [['--local', '--stack', 's'], '--local goes alone'],
    [['--output', 'K'], '--output goes with --stack'],
    [['--stack', 's', 'extra'], '`audit` takes no argument'],
    [['--stack', 's', '--region', 'moon'], '--region must be a region name'],
    [['--stack', 's', '--tool', ''], '--tool needs a value'],
  ])('%j is bad usage (exit 2), pointing to `audit --help`', async (args, message) => {
    const run = await runCli(['audit', ...args], { env: bareEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('cdk-tool-handler audit --help');
  });

  test('with --json the error is JSON on stderr', async () => {
    const run = await runCli(['audit', '--json', '--since', 'later', '--local'], { env: bareEnv() });
    expect(JSON.parse(run.stderr)).toEqual({ error: { type: 'usage', message: expect.stringContaining('--since must be') } });
  });
});

test('audit --help documents the command', async () => {
  const run = await runCli(['audit', '--help'], { env: bareEnv() });
  expect(run.code).toBe(0);
  for (const option of ['--since', '--caller', '--tool', '--approval', '--stack', '--output', '--local', '--json', 'grantReadAudit']) expect(run.stdout).toContain(option);
  expect((await runCli(['--help'], { env: bareEnv() })).stdout).toMatch(/^ {2}audit {7}Read the audit records/m);
});

test('a stack with two ToolHandlers: every owner\'s log groups, handler, API, expirer; --output keeps one owner\'s', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Two');
  new ToolHandler(stack, 'First', { entry: ENTRY, tools: ['add'], owner: 'first' });
  new ToolHandler(stack, 'Second', { entry: ENTRY, tools: ['add'], owner: 'second' });
  const template = Template.fromStack(stack).toJSON();
  const groups = auditLogGroupsOf('Two', template, stackResources(template));
  expect(groups.map((g) => `${g.owner} ${g.part} ${g.logGroup.replace(/[0-9A-F]{8}$/, '')}`)).toEqual([
    'first tool-handler /test/FirstLogGroup',
    'first approvals-api /test/FirstApprovalsApiLogGroup',
    'first approvals-expirer /test/FirstApprovalsExpirerLogGroup',
    'second tool-handler /test/SecondLogGroup',
    'second approvals-api /test/SecondApprovalsApiLogGroup',
    'second approvals-expirer /test/SecondApprovalsExpirerLogGroup',
  ]);
  const second = Object.keys(template.Outputs).find((k) => k.startsWith('TwoSecond') && k.endsWith('ApprovalsApiUrl'))!;
  expect(auditLogGroupsOf('Two', template, stackResources(template), second).map((g) => g.owner)).toEqual(['second', 'second', 'second']);
  // A function without LoggingConfig logs to Lambda's default group.
  delete template.Resources[Object.keys(template.Resources).find((id) => id.startsWith('FirstFunction') && template.Resources[id].Type === 'AWS::Lambda::Function')!].Properties.LoggingConfig;
  expect(auditLogGroupsOf('Two', template, stackResources(template))[0].logGroup).toMatch(/^\/aws\/lambda\/fn-FirstFunction/);
});

test('the one-file CLI carries the CloudWatch Logs client: the bundle reads the same records', async () => {
  const bundle = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cli-audit-')), 'cli.js');
  await exec(process.execPath, [path.join(ROOT, 'cli', 'build.mjs'), bundle], { cwd: ROOT });
  try {
    const { stdout } = await exec(process.execPath, [bundle, 'audit', '--stack', STACK, '--json'], { env: env() });
    expect(jsonLines(stdout)).toEqual(byTime(records));
  } finally {
    fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
  }
}, 60_000);

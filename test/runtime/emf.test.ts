/**
 * The metrics in the runtime's log lines, checked against AWS's "Specification: Embedded
 * metric format" (test/support/emf-spec.ts writes its rules as checks; the first tests show that
 * those checks catch what the specification forbids): every call line carries `Calls`, `Failed` and
 * `Duration` under `[Owner]` and, for an allowlisted tool, `[Owner, Tool]`; the approvals' own lines
 * carry theirs. The runtime here is the in-process one; test/construct/operations-bundles.test.ts
 * runs the synthesized bundles.
 */
import * as z from 'zod';
import { approvalsApi } from '../../lambda/approvals/api';
import { approvalsExpirer } from '../../lambda/approvals/expirer';
import { callFingerprint } from '../../lambda/ids';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor } from '../../lambda';
import { emfProblems, emittedMetrics, metricIdentity } from '../support/emf-spec';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { functionUrlEvent } from '../support/function-url-event';

/** The specification's own example document (its section "Embedded metric format example and JSON schema"). */
const SPEC_EXAMPLE = JSON.stringify({
  _aws: {
    Timestamp: 1574109732004,
    CloudWatchMetrics: [{ Namespace: 'lambda-function-metrics', Dimensions: [['functionVersion']], Metrics: [{ Name: 'time', Unit: 'Milliseconds' }] }],
  },
  functionVersion: '$LATEST',
  time: 100,
  requestId: '989ffbf8-9ace-4817-a57c-e4dd734019ee',
});

describe('the specification checks', () => {
  const example = JSON.parse(SPEC_EXAMPLE);
  const variant = (change: (doc: any) => void) => {
    const doc = structuredClone(example);
    change(doc);
    return JSON.stringify(doc);
  };

  test("accept the specification's own example", () => {
    expect(emfProblems(SPEC_EXAMPLE)).toEqual([]);
    expect(emittedMetrics(SPEC_EXAMPLE)).toEqual([
      { namespace: 'lambda-function-metrics', name: 'time', dimensions: { functionVersion: '$LATEST' }, unit: 'Milliseconds', value: 100 },
    ]);
  });

  test.each([
    ['data before the JSON object', `START ${SPEC_EXAMPLE}`, /valid JSON object/],
    ['no _aws', JSON.stringify({ time: 1 }), /_aws/],
    ['a Timestamp in seconds', variant((d) => (d._aws.Timestamp = 1574109732)), /milliseconds/],
    ['a Timestamp as a string', variant((d) => (d._aws.Timestamp = '1574109732004')), /milliseconds/],
    ['a dimension missing from the root', variant((d) => delete d.functionVersion), /dimension functionVersion/],
    ['a dimension that is not a string', variant((d) => (d.functionVersion = 1)), /dimension functionVersion/],
    ['a metric missing from the root', variant((d) => delete d.time), /metric time/],
    ['a metric nested, not at the root', variant((d) => { d.nested = { time: 1 }; delete d.time; }), /metric time/],
    ['a metric that is a string', variant((d) => (d.time = '100')), /metric time/],
    ['a unit not in the list', variant((d) => (d._aws.CloudWatchMetrics[0].Metrics[0].Unit = 'Millis')), /Unit/],
    ['a member the directive does not define', variant((d) => (d._aws.CloudWatchMetrics[0].Extra = 1)), /Extra/],
    ['no Namespace', variant((d) => delete d._aws.CloudWatchMetrics[0].Namespace), /Namespace/],
    ['31 dimension keys in a set', variant((d) => {
      const keys = Array.from({ length: 31 }, (_, i) => `d${i}`);
      keys.forEach((key) => (d[key] = 'x'));
      d._aws.CloudWatchMetrics[0].Dimensions = [keys];
    }), /30 dimension keys/],
    ['101 metrics', variant((d) => {
      d._aws.CloudWatchMetrics[0].Metrics = Array.from({ length: 101 }, (_, i) => ({ Name: `m${i}` }));
      for (let i = 0; i < 101; i++) d[`m${i}`] = i;
    }), /100 MetricDefinition/],
  ])('reject %s', (_what, line, problem) => {
    expect(emfProblems(line).join('\n')).toMatch(problem);
  });
});

let stdout: ReturnType<typeof captureLogs>;
beforeEach(() => (stdout = captureLogs()));
afterEach(() => stdout.restore());

/** The lines written, each checked against the specification, as what CloudWatch extracts from them. */
function metricsWritten(): Array<{ line: Record<string, unknown>; metrics: string[] }> {
  // An expiry's audit record is a line of its own, with no metrics.
  const lines = stdout.text().filter((line) => !(JSON.parse(line).event === 'expiry' && !line.includes('"_aws"')));
  return lines.map((line) => {
    expect({ line, problems: emfProblems(line) }).toEqual({ line, problems: [] });
    return { line: JSON.parse(line), metrics: emittedMetrics(line).map((m) => `${metricIdentity(m.namespace, m.name, m.dimensions)} ${m.unit} ${JSON.stringify(m.value)}`) };
  });
}

const add = tool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b });
const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: ({ orderId }) => orderId });
const hidden = tool({ name: 'hidden', run: () => 'never' });
const NS = 'CdkToolHandler';

describe('call lines', () => {
  test('a call that succeeds: Calls 1, Failed 0, Duration under [Owner] and [Owner, Tool], beside the line of today', async () => {
    const handler = toolHandler(new ToolExecutor({ tools: [add], approvals: false, owner: 'team-a' }), { replies: false });
    await handler({ tool: 'add', args: { a: 1, b: 2 }, run_id: 'r', call_id: 'c' }, lambdaContext(10_000));
    const [{ line, metrics }] = metricsWritten();
    expect(line).toMatchObject({ level: 'INFO', message: 'tool call', tool: 'add', run_id: 'r', call_id: 'c', status: 'ok', Owner: 'team-a', Tool: 'add' });
    const ms = line.duration_ms as number;
    expect(line.Duration).toBe(ms);
    expect(metrics).toEqual([
      `${NS}/Calls {Owner=team-a} Count 1`,
      `${NS}/Failed {Owner=team-a} Count 0`,
      `${NS}/Duration {Owner=team-a} Milliseconds ${ms}`,
      `${NS}/Calls {Owner=team-a,Tool=add} Count 1`,
      `${NS}/Failed {Owner=team-a,Tool=add} Count 0`,
      `${NS}/Duration {Owner=team-a,Tool=add} Milliseconds ${ms}`,
    ]);
  });

  test('a call that fails: Failed 1; ids, args and messages are never dimensions', async () => {
    const handler = toolHandler(new ToolExecutor({ tools: [add], approvals: false, owner: 'team-a' }), { replies: false });
    await expect(handler({ tool: 'add', args: { a: 'secret-arg', b: 2 }, run_id: 'run-x', call_id: 'call-x' }, lambdaContext(10_000))).rejects.toThrow();
    const [{ line, metrics }] = metricsWritten();
    expect(line).toMatchObject({ level: 'ERROR', error: { type: 'ToolUsageError' }, Failed: 1, Tool: 'add' });
    expect(metrics.filter((m) => m.includes('/Failed'))).toEqual([`${NS}/Failed {Owner=team-a} Count 1`, `${NS}/Failed {Owner=team-a,Tool=add} Count 1`]);
    expect(metrics.join('\n')).not.toMatch(/run-x|call-x|secret-arg|must be/);
  });

  test('a tool outside the allowlist, or unknown, is counted under [Owner] alone', async () => {
    const handler = toolHandler(new ToolExecutor({ tools: [add, hidden], approvals: false, owner: 'team-a' }), { replies: false, tools: ['add'] });
    await expect(handler({ tool: 'hidden' }, lambdaContext(10_000))).rejects.toThrow(/hidden/);
    await expect(handler({ tool: 'made-up-name-1' }, lambdaContext(10_000))).rejects.toThrow(/made-up-name-1/);
    const written = metricsWritten();
    expect(written.map(({ line }) => [line.tool, line.Tool, line.Failed])).toEqual([
      ['hidden', undefined, 1],
      ['made-up-name-1', undefined, 1],
    ]);
    for (const { metrics } of written) expect(metrics.every((m) => m.includes('{Owner=team-a}'))).toBe(true);
  });

  test('a call that needs approval: ApprovalsRequested 1; a repeat answered from the kept reply: DuplicatesSuppressed 1', async () => {
    const store = new MemoryApprovalStore({ owner: 'team-a' });
    const handler = toolHandler(new ToolExecutor({ tools: [add, refund], approvals: store, owner: 'team-a' }), { replies: false });
    await handler({ tool: 'refund', args: { orderId: 'o1' }, run_id: 'r', call_id: 'c1' }, lambdaContext(10_000));
    await handler({ tool: 'add', args: { a: 1, b: 1 }, run_id: 'r', call_id: 'c2' }, lambdaContext(10_000));
    await handler({ tool: 'add', args: { a: 1, b: 1 }, run_id: 'r', call_id: 'c2' }, lambdaContext(10_000));
    const [pending, first, repeat] = metricsWritten();
    expect(pending.line).toMatchObject({ status: 'pending_approval', ApprovalsRequested: 1 });
    expect(pending.metrics).toContain(`${NS}/ApprovalsRequested {Owner=team-a,Tool=refund} Count 1`);
    expect(pending.metrics).toContain(`${NS}/ApprovalsRequested {Owner=team-a} Count 1`);
    expect(first.line.DuplicatesSuppressed).toBeUndefined();
    expect(first.metrics.some((m) => m.includes('DuplicatesSuppressed') || m.includes('ApprovalsRequested'))).toBe(false);
    expect(repeat.line).toMatchObject({ status: 'ok', DuplicatesSuppressed: 1 });
    expect(repeat.metrics).toContain(`${NS}/DuplicatesSuppressed {Owner=team-a,Tool=add} Count 1`);
  });

  test('the namespace comes from TOOL_HANDLER_METRICS_NAMESPACE; a refused SQS record counts under the environment\'s owner', async () => {
    process.env.TOOL_HANDLER_METRICS_NAMESPACE = 'Team/Tools';
    process.env.TOOL_HANDLER_OWNER = 'team-b';
    try {
      const handler = toolHandler(new ToolExecutor({ tools: [add], approvals: false }), { replies: false });
      const bad = { ...sqsRecord('m-2', {}), body: undefined } as any;
      await handler(sqsEvent(sqsRecord('m-1', { tool: 'add', args: { a: 1, b: 1 } }), bad), lambdaContext(10_000));
    } finally {
      delete process.env.TOOL_HANDLER_METRICS_NAMESPACE;
      delete process.env.TOOL_HANDLER_OWNER;
    }
    const written = metricsWritten();
    const refused = written.find(({ line }) => line.message_id === 'm-2')!;
    expect(refused.line).toMatchObject({ error: { type: 'ToolUsageError' }, Owner: 'team-b', Failed: 1 });
    expect(refused.metrics).toContain('Team/Tools/Calls {Owner=team-b} Count 1');
    expect(written.find(({ line }) => line.message_id === 'm-1')!.metrics).toContain('Team/Tools/Calls {Owner=team-b,Tool=add} Count 1');
  });
});

describe("the approvals' lines", () => {
  const T0 = Date.UTC(2030, 0, 1);
  const target = { owner: 'team-a', namespace: NS };

  test('an expirer run: PendingApprovals, OldestPendingApprovalAge (s), ApprovalsExpired under [Owner], every run', async () => {
    let time = T0;
    const store = new MemoryApprovalStore({ owner: 'team-a', now: () => time, ttlSeconds: 600 });
    const expirer = approvalsExpirer({ store, metrics: target });
    await expirer();
    const create = (id: string) => store.create({ approvalId: id, tool: 'refund', args: {}, runId: 'r', callId: id, fingerprint: callFingerprint('refund', {}) });
    await create('a');
    time += 120_000;
    await create('b');
    time += 540_000; // a is due (600 s), b has waited 540 s
    await expirer();
    const [empty, run] = metricsWritten();
    expect(empty.metrics).toEqual([`${NS}/PendingApprovals {Owner=team-a} Count 0`, `${NS}/OldestPendingApprovalAge {Owner=team-a} Seconds 0`, `${NS}/ApprovalsExpired {Owner=team-a} Count 0`]);
    expect(run.metrics).toEqual([`${NS}/PendingApprovals {Owner=team-a} Count 1`, `${NS}/OldestPendingApprovalAge {Owner=team-a} Seconds 540`, `${NS}/ApprovalsExpired {Owner=team-a} Count 1`]);
  });

  test('a decision: ApprovalsDecided 1 under [Owner] and [Owner, Decision]; a refused decision writes none', async () => {
    const store = new MemoryApprovalStore({ owner: 'team-a' });
    const api = approvalsApi({ store, metrics: target });
    for (const id of ['yes', 'no']) await store.create({ approvalId: id, tool: 'refund', args: {}, runId: 'r', callId: id, fingerprint: callFingerprint('refund', {}) });
    const decide = (id: string, approved: boolean) =>
      api(functionUrlEvent('POST', `/approvals/${id}/decision`, { body: { approved, fingerprint: callFingerprint('refund', {}) } }));
    expect((await decide('yes', true)).statusCode).toBe(200);
    expect((await decide('no', false)).statusCode).toBe(200);
    expect((await decide('no', true)).statusCode).toBe(409);
    const written = metricsWritten();
    expect(written.map(({ metrics }) => metrics)).toEqual([
      [`${NS}/ApprovalsDecided {Owner=team-a} Count 1`, `${NS}/ApprovalsDecided {Decision=Approved,Owner=team-a} Count 1`],
      [`${NS}/ApprovalsDecided {Owner=team-a} Count 1`, `${NS}/ApprovalsDecided {Decision=Denied,Owner=team-a} Count 1`],
    ]);
    expect(written[0].line).toMatchObject({ message: 'approval decided', approval_id: 'yes', Decision: 'Approved' });
  });
});

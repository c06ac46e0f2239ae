/**
 * Operations through the REAL bundles: the synthesized handler, approvals API and expirer, each in a
 * `node` process of its own (local/function-sandbox.ts, as `cdk-tool-handler local` runs them) with
 * the environment the template gives it, on dynalite, with the approvals engine's bundle behind a
 * local Lambda endpoint. Calls that succeed, fail, need approval and repeat; a decision each way; an
 * expirer run. Every line with metrics they print follows AWS's "Specification: Embedded metric
 * format" (test/support/emf-spec.ts), and every metric that a synthesized alarm or the dashboard
 * reads (namespace, name, exact dimension set) is among those the run emitted: a mismatch is an
 * alarm that never fires.
 */
import * as path from 'node:path';
import { callFingerprint } from '../../lambda/ids';
import { ENV } from '../../lambda/construct-contract';
import { hostApprovals, sdkOnlyNodePath, synthesizeBundle, type SynthesizedBundle } from '../support/bundle-child';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { emfProblems, emittedMetrics, metricIdentity } from '../support/emf-spec';
import { sqsEvent, sqsRecord } from '../support/events';
import { functionUrlEvent } from '../support/function-url-event';
import type { LambdaHost } from '../support/lambda-host';
import { LOCAL_AWS_ENV } from '../support/local-aws';
import { until } from '../support/until';
import { RecordedSandboxes, returned } from '../support/recorded-sandboxes';

const ENTRY = path.join(__dirname, '..', '..', 'bin', 'tools.ts');
const NAMESPACE = 'Ops/Bundles';

let synthesized: SynthesizedBundle;
let host: LambdaHost;
/** The three functions' sandboxes, and every line they printed. */
const sandboxes = new RecordedSandboxes();
const { printed } = sandboxes;
const sandbox = sandboxes.add.bind(sandboxes);

beforeAll(async () => {
  synthesized = synthesizeBundle({ entry: ENTRY, tools: ['add', 'refund'], metricsNamespace: NAMESPACE, dashboard: true });
  const nodePath = sdkOnlyNodePath();
  const { tableName } = await createTestTable();
  const approvals = await hostApprovals(synthesized, tableName, nodePath);
  host = approvals.host;
  const local = { ...LOCAL_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(), [ENV.approvalsTable]: tableName };
  const handler = sandbox('handler', synthesized.bundle, { ...approvals.handlerEnv, ...local }, nodePath);
  const api = sandbox('api', synthesized.api.bundle, { ...synthesized.api.env, ...local }, nodePath);
  const expirer = sandbox('expirer', synthesized.expirer.bundle, { ...synthesized.expirer.env, ...local }, nodePath);
  await sandboxes.ready();

  // Succeeds, then repeats (answered from the kept reply); fails on its args; names no tool of the handler.
  returned(await handler.invoke({ tool: 'add', args: { a: 1, b: 2 }, run_id: 'ops', call_id: 'add-1' }));
  returned(await handler.invoke({ tool: 'add', args: { a: 1, b: 2 }, run_id: 'ops', call_id: 'add-1' }));
  expect(await handler.invoke({ tool: 'add', args: { a: 'x', b: 2 } })).toMatchObject({ ok: false, error: { errorType: 'ToolUsageError' } });
  expect(await handler.invoke({ tool: 'made-up-tool' })).toMatchObject({ ok: false, error: { errorType: 'ToolNotFound' } });
  // Two calls that need approval; one approved and one denied through the API; both resumed.
  const pending = [returned(await handler.invoke({ tool: 'refund', args: { orderId: 'o-1' } })), returned(await handler.invoke({ tool: 'refund', args: { orderId: 'o-2' } }))];
  expect(pending.map((reply) => reply.status)).toEqual(['pending_approval', 'pending_approval']);
  for (const [reply, approved] of [[pending[0], true], [pending[1], false]] as const) {
    const body = { approved, fingerprint: callFingerprint('refund', { orderId: approved ? 'o-1' : 'o-2' }) };
    expect(returned(await api.invoke(functionUrlEvent('POST', `/approvals/${reply.approval_id}/decision`, { body }))).statusCode).toBe(200);
  }
  expect(returned(await handler.invoke({ approval_id: pending[0].approval_id }))).toMatchObject({ status: 'ok' });
  expect(await handler.invoke({ approval_id: pending[1].approval_id })).toMatchObject({ ok: false, error: { errorType: 'ApprovalDenied' } });
  // An SQS batch: one call, one record refused before it runs.
  const refused = { ...sqsRecord('m-bad', {}), body: undefined };
  returned(await handler.invoke(sqsEvent(sqsRecord('m-good', { tool: 'add', args: { a: 2, b: 2 } }), refused as any)));
  returned(await expirer.invoke({}));
  // Lines are read as they come: wait until the expirer's line (the last one written) is in.
  await until(
    () => printed.some(({ fn, line }) => fn === 'expirer' && line.includes('_aws')),
    "the expirer's line with metrics",
    () => ({ stdout: printed.map(({ fn, line }) => `${fn}: ${line}`).join('\n'), stderr: '' }),
  );
}, 180_000);

afterAll(async () => {
  await sandboxes.stop();
  await host?.close();
});

const withMetrics = () => printed.filter(({ line }) => line.includes('"_aws"'));

test('every line with metrics that the bundles print follows the EMF specification', () => {
  const lines = withMetrics();
  expect(lines.map(({ fn }) => fn).sort()).toEqual([...Array(2).fill('api'), 'expirer', ...Array(10).fill('handler')].sort());
  for (const { fn, line } of lines) expect({ fn, line, problems: emfProblems(line) }).toEqual({ fn, line, problems: [] });
  // The handler's call lines are the lines with metrics: none without, none twice.
  const callLines = printed.filter(({ line }) => line.includes('"message":"tool call"'));
  expect(callLines.length).toBe(10);
  expect(callLines.every(({ line }) => line.includes('"_aws"'))).toBe(true);
});

test('the figures of the run: calls per tool, failures, approvals requested and decided, a duplicate, the expirer', () => {
  const sums = new Map<string, number>();
  for (const { line } of withMetrics()) {
    for (const m of emittedMetrics(line)) {
      const id = metricIdentity(m.namespace, m.name, m.dimensions);
      sums.set(id, (sums.get(id) ?? 0) + (m.value as number));
    }
  }
  const owner = synthesized.variables[ENV.owner];
  const at = (name: string, dims: Record<string, string> = {}) => sums.get(metricIdentity(NAMESPACE, name, { Owner: owner, ...dims }));
  // 10 calls; failed: bad args, an unknown tool, the denied resume, the refused record.
  expect([at('Calls'), at('Failed')]).toEqual([10, 4]);
  expect([at('Calls', { Tool: 'add' }), at('Failed', { Tool: 'add' })]).toEqual([4, 1]);
  expect([at('Calls', { Tool: 'refund' }), at('Failed', { Tool: 'refund' })]).toEqual([4, 1]);
  expect(at('ApprovalsRequested', { Tool: 'refund' })).toBe(2);
  expect(at('DuplicatesSuppressed', { Tool: 'add' })).toBe(1);
  expect([at('ApprovalsDecided'), at('ApprovalsDecided', { Decision: 'Approved' }), at('ApprovalsDecided', { Decision: 'Denied' })]).toEqual([2, 1, 1]);
  expect([at('PendingApprovals'), at('OldestPendingApprovalAge'), at('ApprovalsExpired')]).toEqual([0, 0, 0]);
  expect([...sums.keys()].some((id) => id.includes('made-up-tool'))).toBe(false);
});

/** `[namespace, name, dimensions]` of every metric an alarm of the template reads. */
function alarmMetrics(): string[] {
  return Object.values(synthesized.template.findResources('AWS::CloudWatch::Alarm')).flatMap((alarm: any) => {
    const p = alarm.Properties;
    const stats = p.MetricName ? [{ Namespace: p.Namespace, MetricName: p.MetricName, Dimensions: p.Dimensions ?? [] }] : (p.Metrics ?? []).filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
    return stats
      .filter((m: any) => m.Namespace === NAMESPACE)
      .map((m: any) => metricIdentity(m.Namespace, m.MetricName, Object.fromEntries((m.Dimensions ?? []).map((d: any) => [d.Name, d.Value]))));
  });
}

/** The same for the dashboard's metric widgets (its body, with deploy-time values made placeholders). */
function dashboardMetrics(): string[] {
  const [dashboard] = Object.values(synthesized.template.findResources('AWS::CloudWatch::Dashboard')) as any[];
  const [, parts] = dashboard.Properties.DashboardBody['Fn::Join'];
  const body = JSON.parse(parts.map((part: unknown) => (typeof part === 'string' ? part : 'deploy-time')).join(''));
  return body.widgets
    .filter((widget: any) => widget.type === 'metric')
    .flatMap((widget: any) => widget.properties.metrics ?? [])
    .filter((metric: any[]) => metric[0] === NAMESPACE)
    .map((metric: any[]) => {
      const pairs = metric.slice(2).filter((item) => typeof item === 'string');
      const dims: Record<string, string> = {};
      for (let i = 0; i < pairs.length; i += 2) dims[pairs[i]] = pairs[i + 1];
      return metricIdentity(metric[0], metric[1], dims);
    });
}

test('every metric that an alarm or the dashboard reads was emitted by the run, with exactly its dimensions', () => {
  const emitted = new Set(withMetrics().flatMap(({ line }) => emittedMetrics(line).map((m) => metricIdentity(m.namespace, m.name, m.dimensions))));
  const owner = synthesized.variables[ENV.owner];
  const alarms = alarmMetrics();
  const dashboard = dashboardMetrics();
  // What the alarms read of the handler's own figures: the failed share (Failed, Calls), the expirer's silence and the oldest pending approval.
  expect([...new Set(alarms)].sort()).toEqual(
    ['Calls', 'Failed', 'OldestPendingApprovalAge', 'PendingApprovals'].map((name) => metricIdentity(NAMESPACE, name, { Owner: owner })).sort(),
  );
  // Calls, Failed, Duration per tool; approvals requested, approved, denied, expired; pending and the oldest's age.
  expect(new Set(dashboard).size).toBe(12);
  for (const metric of [...alarms, ...dashboard]) expect({ metric, emitted: emitted.has(metric) }).toEqual({ metric, emitted: true });
});

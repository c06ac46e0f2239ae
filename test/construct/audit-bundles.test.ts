/**
 * Audit records through the REAL bundles: the synthesized handler, approvals API and expirer, each in
 * a process of its own with the environment the template gives it, on dynalite, the engine behind a
 * local Lambda endpoint. A call of every outcome (ok, pending, each error kind, already_done, a
 * refused delivery), a decision each way and an expiry: every audit line they print has every field
 * of the schema (lambda/audit.ts), says who asked, and holds no value of any call's args.
 */
import * as path from 'node:path';
import { ENV } from '../../lambda/construct-contract';
import { callFingerprint } from '../../lambda/ids';
import { hostApprovals, sdkOnlyNodePath, synthesizeBundle, type SynthesizedBundle } from '../support/bundle-child';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { sqsEvent, sqsRecord } from '../support/events';
import { functionUrlEvent } from '../support/function-url-event';
import { startLambdaHost, type LambdaHost } from '../support/lambda-host';
import { LOCAL_AWS_ENV } from '../support/local-aws';
import { until } from '../support/until';
import { RecordedSandboxes, returned } from '../support/recorded-sandboxes';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'audit-tools.ts');
const SECRET = 'CARD-4111-1111-1111-1111';
const SENDER = 'AIDAEXAMPLE';
const APPROVER = 'arn:aws:iam::123456789012:user/alice';

let synthesized: SynthesizedBundle;
const hosts: LambdaHost[] = [];
/** The three functions' sandboxes, and every line they printed. */
const sandboxes = new RecordedSandboxes();
const { printed } = sandboxes;
const sandbox = sandboxes.add.bind(sandboxes);

const ARGS = {
  ok: { a: 1, b: 2, note: SECRET },
  approved: { orderId: `${SECRET}-1` },
  denied: { orderId: `${SECRET}-2` },
  expiring: { orderId: `${SECRET}-3` },
};

beforeAll(async () => {
  synthesized = synthesizeBundle({ entry: ENTRY, tools: ['add', 'refund', 'boom', 'whoami'] });
  const nodePath = sdkOnlyNodePath();
  const { tableName } = await createTestTable();
  const approvals = await hostApprovals(synthesized, tableName, nodePath);
  hosts.push(approvals.host);
  const local = { ...LOCAL_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(), [ENV.approvalsTable]: tableName };
  const handler = sandbox('handler', synthesized.bundle, { ...approvals.handlerEnv, ...local }, nodePath);
  const api = sandbox('api', synthesized.api.bundle, { ...synthesized.api.env, ...local }, nodePath);
  const expirer = sandbox('expirer', synthesized.expirer.bundle, { ...synthesized.expirer.env, ...local }, nodePath);
  await sandboxes.ready();

  const sqs = (id: string, envelope: unknown) => handler.invoke(sqsEvent(sqsRecord(id, envelope)));
  returned(await sqs('m-ok', { tool: 'add', args: ARGS.ok, run_id: 'audit', call_id: 'ok' }));
  returned(await sqs('m-ok-again', { tool: 'add', args: ARGS.ok, run_id: 'audit', call_id: 'ok' })); // kept reply
  returned(await sqs('m-bad-args', { tool: 'add', args: { a: SECRET } }));
  returned(await sqs('m-unknown', { tool: 'nope', args: { x: SECRET } }));
  returned(await sqs('m-boom', { tool: 'boom', args: { x: SECRET } }));
  expect(await handler.invoke({ tool: 'whoami', args: { x: SECRET } })).toMatchObject({ ok: false, error: { errorType: 'CallerRequired' } });
  returned(await sqs('m-whoami', { tool: 'whoami' }));
  returned(await handler.invoke(sqsEvent({ ...sqsRecord('m-refused', {}), body: undefined } as any)));
  // Two approvals asked by an SQS sender, decided each way through the API, and resumed by direct invokes.
  for (const [name, callId] of [['approved', 'a1'], ['denied', 'a2']] as const) {
    returned(await sqs(`m-${name}`, { tool: 'refund', args: ARGS[name], run_id: 'audit', call_id: callId }));
  }
  const listed = returned(await api.invoke(functionUrlEvent('GET', '/approvals', { query: { status: 'pending' } })));
  const pending = JSON.parse(listed.body).approvals as Array<{ approval_id: string; call_id: string; fingerprint: string }>;
  for (const approval of pending) {
    const approved = approval.call_id === 'a1';
    const body = { approved, fingerprint: approval.fingerprint, ...(approved ? {} : { reason: 'not this one' }) };
    const decided = returned(await api.invoke(functionUrlEvent('POST', `/approvals/${approval.approval_id}/decision`, { body, userArn: APPROVER })));
    expect(decided.statusCode).toBe(200);
    await handler.invoke({ approval_id: approval.approval_id });
    await handler.invoke({ approval_id: approval.approval_id }); // a second resume: already_done, or the denial again
  }
  // One left to expire: asked through an engine whose approval TTL is 2 s.
  const shortLived = await startLambdaHost(
    { engine: { bundle: synthesized.engine.bundle, env: { ...synthesized.engine.env, ...local, [ENV.approvalTtlSeconds]: '2' } } },
    nodePath,
  );
  hosts.push(shortLived);
  const handlerOfShort = sandbox('handler', synthesized.bundle, { ...approvals.handlerEnv, ...local, AWS_ENDPOINT_URL_LAMBDA: shortLived.endpoint }, nodePath);
  await handlerOfShort.ready();
  returned(await handlerOfShort.invoke({ tool: 'refund', args: ARGS.expiring, run_id: 'audit', call_id: 'a3' }));
  // Past the 2 s TTL, and past the whole second the table rounds the expiry up to.
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  returned(await expirer.invoke({}));
  await until(
    () => printed.some(({ fn, line }) => fn === 'expirer' && line.includes('"approval expired"')),
    "the expirer's audit line",
    () => ({ stdout: printed.map(({ fn, line }) => `${fn}: ${line}`).join('\n'), stderr: '' }),
  );
}, 180_000);

afterAll(async () => {
  await sandboxes.stop();
  await Promise.all(hosts.map((h) => h.close()));
});

const FIELDS = [
  'record', 'time', 'owner', 'event', 'gen_ai.tool.name', 'gen_ai.tool.call.id', 'run_id', 'approval_id', 'enduser.id',
  'caller.kind', 'caller.verified', 'source', 'outcome', 'duration_ms', 'args_sha256', 'trace_id', 'message_id',
];

const records = () =>
  printed
    .filter(({ line }) => line.startsWith('{') && JSON.parse(line).record === 'audit')
    .map(({ fn, line }) => ({ fn, record: JSON.parse(line) as Record<string, any> }));

test('every audit record has every field of the schema, the owner, and an ISO 8601 time', () => {
  const owner = synthesized.variables[ENV.owner];
  expect(records().length).toBeGreaterThanOrEqual(15);
  for (const { fn, record } of records()) {
    for (const field of FIELDS) expect({ fn, field, present: field in record }).toEqual({ fn, field, present: true });
    expect(record.owner).toBe(owner);
    expect(new Date(record.time).toISOString()).toBe(record.time);
    expect(['call', 'decision', 'expiry']).toContain(record.event);
  }
});

test('the handler writes one per call, whatever its outcome; the API one per decision; the expirer one per expiry', () => {
  const byFn = (fn: string) => records().filter((r) => r.fn === fn).map((r) => r.record);
  const outcomes = byFn('handler').map((r) => r.outcome);
  for (const outcome of ['ok', 'already_done', 'pending_approval', 'ToolUsageError', 'ToolNotFound', 'ToolFailed', 'CallerRequired', 'ApprovalDenied']) {
    expect({ outcome, present: outcomes.includes(outcome) }).toEqual({ outcome, present: true });
  }
  expect(byFn('handler').every((r) => r.event === 'call')).toBe(true);
  expect(byFn('api').map((r) => [r.event, r.outcome, r.decision, r.decided_by]).sort()).toEqual([
    ['decision', 'approved', 'approved', APPROVER],
    ['decision', 'denied', 'denied', APPROVER],
  ]);
  expect(byFn('expirer').map((r) => [r.event, r.outcome, r['gen_ai.tool.call.id']])).toEqual([['expiry', 'expired', 'a3']]);
});

test('records say who asked: the SQS sender for its calls, their decisions and their resumes; nobody for a direct call', () => {
  const all = records().map((r) => r.record);
  const whoami = all.find((r) => r['gen_ai.tool.name'] === 'whoami' && r.outcome === 'ok')!;
  expect(whoami).toMatchObject({ 'enduser.id': SENDER, 'caller.kind': 'iam', 'caller.verified': true });
  const refused = all.find((r) => r['gen_ai.tool.name'] === 'whoami' && r.outcome === 'CallerRequired')!;
  expect(refused).toMatchObject({ 'enduser.id': null, 'caller.kind': null, 'caller.verified': null, source: 'lambda' });
  for (const callId of ['a1', 'a2']) {
    const ofCall = all.filter((r) => r['gen_ai.tool.call.id'] === callId);
    expect(ofCall.map((r) => r.event).sort()).toEqual(['call', 'call', 'call', 'decision']);
    for (const r of ofCall) expect({ callId, event: r.event, who: r['enduser.id'] }).toEqual({ callId, event: r.event, who: SENDER });
  }
  const expired = all.find((r) => r.event === 'expiry')!;
  expect(expired['enduser.id']).toBeNull();
});

test('args never appear: only their hash, the call fingerprint of tool and args', () => {
  for (const { fn, line } of printed) expect({ fn, hasSecret: line.includes(SECRET) }).toEqual({ fn, hasSecret: false });
  const ok = records().find((r) => r.record['gen_ai.tool.call.id'] === 'ok' && r.record.outcome === 'ok')!.record;
  expect(ok.args_sha256).toBe(callFingerprint('add', ARGS.ok));
  const decision = records().find((r) => r.record.event === 'decision' && r.record.outcome === 'approved')!.record;
  expect(decision.args_sha256).toBe(callFingerprint('refund', ARGS.approved));
});

/**
 * Hostile Gateway calls through the REAL bundles (the construct's handler bundle in a child node
 * process, its approvals engine's bundle behind a local Lambda endpoint, dynalite, and a local
 * EventBridge endpoint as the reply bus): a nested or oversized arg with a session id is an error
 * reply, never a throw; a secret-looking value in a bad arg reaches no reply, log line or reply-bus
 * event; `resume_approval` of an approval no Gateway call requested is refused before it is claimed
 * or run; a denial tells the reason, not the approver. In process: test/runtime/bounded-inputs,
 * values-stay-out, gateway-resume and denial-replies.
 */
import { MAX_ENVELOPE_BYTES } from '../../lambda';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import type { BundleRun, Invocation } from '../support/bundle-child';
import { testDocumentClient } from '../support/dynamo';
import { startEventBridgeEndpoint, type EventBridgeEndpoint } from '../support/eventbridge-endpoint';
import { sqsEvent, sqsRecord } from '../support/events';
import { gatewayCall, returned, startGatewayBundle, type GatewayBundle } from '../support/gateway-bundle';

const SECRET = 'SECRET-4111-1111-1111-1111';
const APPROVER = 'arn:aws:sts::123456789012:assumed-role/RefundApprovers/mallory.approver';

let gateway: GatewayBundle;
let bus: EventBridgeEndpoint;
let store: DynamoApprovalStore;

beforeAll(async () => {
  bus = await startEventBridgeEndpoint();
  gateway = await startGatewayBundle(undefined, { replyBusEndpoint: bus.endpoint });
  store = new DynamoApprovalStore({ tableName: gateway.tableName, client: testDocumentClient(), owner: gateway.owner });
}, 120_000);

afterAll(async () => {
  await gateway?.host.close();
  await bus?.close();
});

beforeEach(() => {
  gateway.clearRuns();
  bus.received.length = 0;
});

/** A Gateway call of `charge` whose event is the JSON text `json` (too deep to be stringified here). */
function chargeAsText(json: string, sessionId: string): Invocation {
  return { ...gatewayCall('billing___charge', null, sessionId), eventJson: json };
}

/** The one log line of the call the bundle wrote. */
function callLines(run: BundleRun): Array<Record<string, any>> {
  return run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((line) => line.message === 'tool call');
}

const DEEP = `${'['.repeat(5000)}${']'.repeat(5000)}`;

test.each([
  ['an arg nested 5,000 deep', `{"amount":1,"currency":"EUR","tags":${DEEP}}`, /nested deeper than 64 levels/],
  ['an arg over MAX_ENVELOPE_BYTES', JSON.stringify({ amount: 1, currency: 'EUR', tags: ['x'.repeat(MAX_ENVELOPE_BYTES)] }), /over the limit of 1048576 bytes/],
])('a call with a session id and %s: a ToolUsageError reply naming the limit, never thrown', async (_label, json, limit) => {
  const run = await gateway.run([chargeAsText(json, 'session-hostile')]);
  const reply = returned(run.outcomes[0]);
  expect(reply).toMatchObject({ status: 'error', tool: 'charge', error: { type: 'ToolUsageError', message: expect.stringMatching(limit), retryable: false } });
  expect(run.stderr).not.toMatch(/RangeError|Maximum call stack/);
  expect(callLines(run)).toEqual([expect.objectContaining({ tool: 'charge', error: expect.objectContaining({ type: 'ToolUsageError', message: reply.error.message }) })]);
  expect(bus.received.map((entry) => JSON.parse(entry.Detail!).error?.type)).toEqual(['ToolUsageError']);
  expect(gateway.runs()).toEqual([]);
});

test.each([
  ['a wrong type', { amount: SECRET, currency: 'EUR' }],
  ['a value not in an enum', { amount: 1, currency: SECRET }],
  ['a bad format', { amount: 1, currency: 'EUR', email: SECRET }],
  ['a string too long in an array', { amount: 1, currency: 'EUR', tags: [SECRET] }],
])('a secret in a bad arg (%s) reaches no reply, log line or reply-bus event', async (_label, args) => {
  const run = await gateway.run([gatewayCall('billing___charge', args, 'session-secret'), gatewayCall('billing___charge', args, '')]);
  for (const outcome of run.outcomes) expect(returned(outcome)).toMatchObject({ status: 'error', error: { type: 'ToolUsageError' } });
  expect(bus.received).toHaveLength(2);
  const seen = [JSON.stringify(run.outcomes), run.stdout, run.stderr, JSON.stringify(bus.received)].join('\n');
  expect(seen).not.toContain(SECRET);
  // A part of it too; not '4111' alone, which a random UUID (a derived call id) may hold by chance.
  expect(seen).not.toMatch(/4111[- ]1111/);
  expect(gateway.runs()).toEqual([]);
});

test('attack: resume_approval of an approval requested through SQS (approved) is refused before any claim or run', async () => {
  // Another caller's call, through the queue: its approval id reaches the reply bus.
  const queued = await gateway.run([{ event: sqsEvent(sqsRecord('m-private', { tool: 'refund', args: { orderId: 'o-private' } })), requestId: 'sqs-1' }]);
  expect(returned(queued.outcomes[0])).toEqual({ batchItemFailures: [] });
  const requested = JSON.parse(bus.received.find((entry) => entry.DetailType === 'Tool Approval Requested')!.Detail!);
  const approvalId: string = requested.approval_id;
  await store.decide(approvalId, { approved: true, by: APPROVER });

  const probe = await gateway.run([
    gatewayCall('billing___resume_approval', { approval_id: approvalId }, 'session-attacker'),
    gatewayCall('billing___resume_approval', { approval_id: 'apr_nope' }, 'session-attacker'),
  ]);
  const [refused, missing] = probe.outcomes.map(returned);
  // Exactly as a missing approval: nothing of the call, its args or its state.
  expect(refused).toEqual({ ...missing, approval_id: approvalId, error: { ...missing.error, message: `Approval ${approvalId} does not exist or has expired.` } });
  expect(refused).toMatchObject({ status: 'error', run_id: null, error: { type: 'ApprovalNotFound' } });
  expect(JSON.stringify(probe)).not.toContain('o-private');
  expect(gateway.runs()).toEqual([]); // never ran
  expect((await store.read(approvalId))?.claimedUntil).toBeUndefined(); // never claimed

  // No claim was taken: its own resume (through the queue's path: a direct resume) runs it, once.
  const [resumed] = await gateway.invoke([{ event: { approval_id: approvalId }, requestId: 'resume-own' }]);
  expect(returned(resumed)).toMatchObject({ status: 'ok', approval_id: approvalId, result: { refunded: 'o-private' } });
  expect(gateway.runs()).toEqual(['refund:o-private']);
  expect(returned((await gateway.invoke([gatewayCall('billing___resume_approval', { approval_id: approvalId }, 'session-attacker')]))[0])).toEqual(refused);
  expect(gateway.runs()).toEqual(['refund:o-private']);
  expect(requested.run_id).not.toMatch(/^agc_/);
});

test('a denied Gateway approval: resume_approval answers the reason, not the approver', async () => {
  const pending = await gateway.one(gatewayCall('billing___refund', { orderId: 'o-denied' }, 'session-denied'));
  expect(pending).toMatchObject({ status: 'pending_approval', approval_id: expect.stringMatching(/^apr_/) });
  await store.decide(pending.approval_id, { approved: false, by: APPROVER, reason: 'order already refunded' });
  bus.received.length = 0;
  const run = await gateway.run([gatewayCall('billing___resume_approval', { approval_id: pending.approval_id }, 'session-denied')]);
  const denial = returned(run.outcomes[0]);
  expect(denial).toMatchObject({ status: 'error', tool: 'refund', error: { type: 'ApprovalDenied' } });
  expect(denial.error.message).toBe(`Approval ${pending.approval_id} for tool refund was denied: order already refunded`);
  const seen = [JSON.stringify(run.outcomes), run.stdout, run.stderr, JSON.stringify(bus.received)].join('\n');
  expect(seen).not.toContain(APPROVER);
  expect(seen).not.toContain('mallory');
  expect((await store.read(pending.approval_id))?.decidedBy).toBe(APPROVER); // the record keeps it
  expect(gateway.runs()).toEqual([]);
});

/**
 * The local run is as closed as the cloud: another process on the machine can neither
 * approve with a forged identity through Lambda's Invoke API, nor call the approvals engine, nor put
 * events on the reply bus. Each test is an attack on the real run of the sample's bundles.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ApprovalsClient } from '../../approvals-client/client';
import { toEndpoint } from '../../approvals-client/endpoint';
import { signedFetch } from '../../approvals-client/signed-fetch';
import { LocalRun } from '../../local/runtime';
import { functionUrlEvent } from '../support/function-url-event';
import { sendRaw, sendSigned, type Keys, type RawReply } from './raw-aws-request';
import { removeMade, requestRefundApproval, synthesizeSample } from './sample-assembly';

const MALLORY = 'arn:aws:iam::000000000000:user/mallory';
const MADE_UP: Keys = { accessKeyId: 'AKIAMADEUP0000000000', secretAccessKey: 'made-up-secret' };

let run: LocalRun;
let approvals: ApprovalsClient;
let calls = 0;

beforeAll(async () => {
  const assembly = synthesizeSample();
  run = await LocalRun.start({ assembly, print: () => undefined, expireEverySeconds: 60 });
  approvals = new ApprovalsClient(toEndpoint(run.apiUrl!, run.region), async () => run.approver);
}, 120_000);

afterAll(async () => {
  await run?.stop();
  removeMade();
});

const invokePath = (name: string) => `/2015-03-31/functions/${encodeURIComponent(name)}/invocations`;
const keysOf = (label: 'handler' | 'engine' | 'api' | 'expirer') => run.credentialsOf(label)!;

/** A refund that waits for approval: its id and fingerprint (read as the approver). */
async function pendingRefund(): Promise<{ id: string; fingerprint: string }> {
  const id = await requestRefundApproval(run, 'closed', `closed-${++calls}`);
  const record = await approvals.get(id);
  return { id, fingerprint: record.fingerprint! };
}

/** The event a function URL would give the API for Mallory's approval of `id`. */
function forgedApproval(refund: { id: string; fingerprint: string }): string {
  return JSON.stringify(
    functionUrlEvent('POST', `/approvals/${refund.id}/decision`, { body: { approved: true, fingerprint: refund.fingerprint }, userArn: MALLORY }),
  );
}

async function expectStillPending(id: string): Promise<void> {
  expect((await approvals.get(id)).status).toBe('pending');
  expect(run.lines.some((l) => l.type === 'decision' && l.approval_id === id)).toBe(false);
}

function expectRefused(reply: RawReply, errorType: RegExp): void {
  expect(reply.status).toBe(403);
  expect(reply.headers['x-amzn-errortype']).toMatch(errorType);
  expect(JSON.parse(reply.text)).toEqual(expect.objectContaining({ message: expect.any(String) }));
}

function lambdaAs(keys: Keys): LambdaClient {
  return new LambdaClient({ region: run.region, endpoint: run.awsEndpointUrl, credentials: keys, maxAttempts: 1 });
}

test('(a) an unsigned Invoke of the API function with a forged function-URL event is refused; nothing is decided', async () => {
  const refund = await pendingRefund();
  const reply = await sendRaw({ origin: run.awsEndpointUrl, path: invokePath(run.functionName('api')!), body: forgedApproval(refund) });
  expectRefused(reply, /^MissingAuthenticationToken/);
  await expectStillPending(refund.id);
});

test('(b) the same, signed with made-up keys, is refused (UnrecognizedClientException)', async () => {
  const refund = await pendingRefund();
  const sent = lambdaAs(MADE_UP).send(new InvokeCommand({ FunctionName: run.functionName('api'), Payload: Buffer.from(forgedApproval(refund)) }));
  await expect(sent).rejects.toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 403 } });
  await expectStillPending(refund.id);
});

test.each([
  ['the approver', () => run.approver],
  ['the handler', () => keysOf('handler')],
  ['the API itself', () => keysOf('api')],
])('(c) the API function cannot be invoked through the Invoke API, signed by %s', async (_, keys) => {
  const refund = await pendingRefund();
  const sent = lambdaAs(keys()).send(new InvokeCommand({ FunctionName: run.functionName('api'), Payload: Buffer.from(forgedApproval(refund)) }));
  await expect(sent).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  await expectStillPending(refund.id);
});

test('(c) nor by its ARN', async () => {
  const refund = await pendingRefund();
  const arn = `arn:aws:lambda:${run.region}:000000000000:function:${run.functionName('api')}`;
  const sent = lambdaAs(keysOf('handler')).send(new InvokeCommand({ FunctionName: arn, Payload: Buffer.from(forgedApproval(refund)) }));
  await expect(sent).rejects.toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } });
  await expectStillPending(refund.id);
});

test.each([
  ['the expirer', () => keysOf('expirer')],
  ['the API', () => keysOf('api')],
  ['the approver', () => run.approver],
  ['made-up keys', () => MADE_UP],
])('(d) the engine cannot be invoked with the keys of %s: only the handler\'s', async (_, keys) => {
  const before = (await approvals.listAll({ status: 'pending', pageSize: 100 })).length;
  const create = { op: 'create', tool: 'refund', args: { orderId: 'forged' }, run_id: 'forged', call_id: `forged-${++calls}` };
  const sent = lambdaAs(keys()).send(new InvokeCommand({ FunctionName: run.functionName('engine'), Payload: Buffer.from(JSON.stringify(create)) }));
  await expect(sent).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  expect((await approvals.listAll({ status: 'pending', pageSize: 100 })).length).toBe(before);
});

test('(d) the handler\'s keys do invoke the engine', async () => {
  const release = { op: 'release', approval_id: 'apr_none', token: 'x' };
  const out = await lambdaAs(keysOf('handler')).send(new InvokeCommand({ FunctionName: run.functionName('engine'), Payload: Buffer.from(JSON.stringify(release)) }));
  expect(out.StatusCode).toBe(200);
  expect(out.FunctionError).toBeUndefined();
});

describe('(e) PutEvents', () => {
  const entry = { Source: 'cdk-tool-handler', DetailType: 'Tool Call Succeeded', EventBusName: 'local-reply-bus', Detail: '{"status":"ok","tool":"forged"}' };
  const putEvents = { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' };

  test('unsigned: refused, and no event is recorded', async () => {
    const before = run.events.length;
    const reply = await sendRaw({ origin: run.awsEndpointUrl, path: '/', headers: putEvents, body: JSON.stringify({ Entries: [entry] }) });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.text)).toEqual(expect.objectContaining({ __type: 'MissingAuthenticationTokenException' }));
    expect(run.events.length).toBe(before);
  });

  test.each([
    ['made-up keys', () => MADE_UP],
    ['the approver', () => run.approver],
  ])('signed with %s: refused, and no event is recorded', async (_, keys) => {
    const before = run.events.length;
    const bus = new EventBridgeClient({ region: run.region, endpoint: run.awsEndpointUrl, credentials: keys(), maxAttempts: 1 });
    await expect(bus.send(new PutEventsCommand({ Entries: [entry] }))).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    expect(run.events.length).toBe(before);
  });
});

describe('(f) a Host that is not loopback is refused, even correctly signed for it', () => {
  test('Invoke of the engine, signed by the handler', async () => {
    const create = { op: 'create', tool: 'refund', args: { orderId: 'rebound' }, run_id: 'forged', call_id: 'rebound' };
    const reply = await sendSigned({
      origin: run.awsEndpointUrl,
      host: 'evil.example',
      path: invokePath(run.functionName('engine')!),
      body: JSON.stringify(create),
      keys: keysOf('handler'),
      service: 'lambda',
      region: run.region,
    });
    expectRefused(reply, /^InvalidSignatureException/);
    expect((await approvals.listAll({ status: 'pending', pageSize: 100 })).some((r) => r.call_id === 'rebound')).toBe(false);
  });

  test('PutEvents, signed by the expirer', async () => {
    const before = run.events.length;
    const reply = await sendSigned({
      origin: run.awsEndpointUrl,
      host: `evil.example:${new URL(run.awsEndpointUrl).port}`,
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
      body: JSON.stringify({ Entries: [{ Source: 'cdk-tool-handler', DetailType: 'Tool Call Succeeded', Detail: '{}' }] }),
      keys: keysOf('expirer'),
      service: 'events',
      region: run.region,
    });
    expect(reply.status).toBe(403);
    expect(run.events.length).toBe(before);
  });

  test('the function URL, signed by the approver', async () => {
    const refund = await pendingRefund();
    const reply = await sendSigned({
      origin: run.apiUrl!,
      host: 'evil.example',
      path: `/approvals/${refund.id}/decision`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, fingerprint: refund.fingerprint }),
      keys: run.approver,
      service: 'lambda',
      region: run.region,
    });
    expect(reply).toMatchObject({ status: 403, text: '{"Message":"Forbidden"}' });
    await expectStillPending(refund.id);
  });
});

test('(h) the function URL still decides as the run\'s approver, and only as them', async () => {
  const refund = await pendingRefund();
  const url = new URL(`approvals/${refund.id}/decision`, run.apiUrl);
  const body = { approved: false, reason: 'closed-run test', fingerprint: refund.fingerprint };
  const forged = await signedFetch({ method: 'POST', url, region: run.region, credentials: async () => MADE_UP, body });
  expect(forged.status).toBe(403);
  await expectStillPending(refund.id);
  const decided = await approvals.decide(refund.id, body);
  expect(decided).toMatchObject({ status: 'denied', decided_by: run.approver.userArn });
});

describe("(i) `local call`'s keys (in the state file) invoke the tool handler, and nothing else", () => {
  const caller = () => ({ accessKeyId: run.caller.accessKeyId, secretAccessKey: run.caller.secretAccessKey });

  test('they invoke the handler: a call runs', async () => {
    const sent = await lambdaAs(caller()).send(
      new InvokeCommand({ FunctionName: run.caller.functionName, Payload: Buffer.from(JSON.stringify({ tool: 'add', args: { a: 2, b: 3 } })) }),
    );
    expect(JSON.parse(Buffer.from(sent.Payload!).toString('utf8'))).toMatchObject({ status: 'ok', result: 5 });
    expect(run.caller.functionName).toBe(run.functionName('handler'));
  });

  test.each(['engine', 'expirer', 'api'] as const)('they cannot invoke the %s', async (label) => {
    const before = (await approvals.listAll({ status: 'pending', pageSize: 100 })).length;
    const create = { op: 'create', tool: 'refund', args: { orderId: 'forged' }, run_id: 'forged', call_id: `caller-${++calls}` };
    const sent = lambdaAs(caller()).send(new InvokeCommand({ FunctionName: run.functionName(label), Payload: Buffer.from(JSON.stringify(create)) }));
    await expect(sent).rejects.toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } });
    expect((await approvals.listAll({ status: 'pending', pageSize: 100 })).length).toBe(before);
  });

  test('they cannot put a reply event on the bus', async () => {
    const before = run.events.length;
    const bus = new EventBridgeClient({ region: run.region, endpoint: run.awsEndpointUrl, credentials: caller(), maxAttempts: 1 });
    const entry = { Source: 'cdk-tool-handler.handler', DetailType: 'Tool Call Succeeded', Detail: JSON.stringify({ status: 'ok', tool: 'add', result: 'forged' }) };
    await expect(bus.send(new PutEventsCommand({ Entries: [entry] }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(run.events.length).toBe(before);
  });

  test("they cannot change a message's visibility on the queue; the handler's keys can", async () => {
    const sqsAs = (keys: Keys) => new SQSClient({ region: run.region, endpoint: run.awsEndpointUrl, credentials: keys, maxAttempts: 1 });
    const change = new ChangeMessageVisibilityCommand({
      QueueUrl: `https://sqs.${run.region}.amazonaws.com/000000000000/tools`,
      ReceiptHandle: 'local-receipt',
      VisibilityTimeout: 30,
    });
    await expect(sqsAs(caller()).send(change)).rejects.toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } });
    await expect(sqsAs(keysOf('handler')).send(change)).resolves.toBeDefined();
  });

  test("they are not the DynamoDB front's keys: a read of the table is refused", async () => {
    const reply = await sendSigned({
      origin: run.dynamoEndpointUrl,
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.Scan' },
      body: JSON.stringify({ TableName: 'any' }),
      keys: caller(),
      service: 'dynamodb',
      region: run.region,
    });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.text).toMatch(/UnrecognizedClientException/);
  });
});

/**
 * SQS's SendMessage and a waiting flow's completions (Step Functions' SendTaskSuccess, Lambda's
 * durable callbacks) are served behind the same front as the local endpoints' other operations:
 * another process on the machine can neither put a tool call on the queue nor complete a flow that
 * waits, not even with the flow's real token or callback id, unsigned, signed with keys the endpoints
 * do not know, signed for another host or service, or with keys that may only invoke the tool
 * handler (`local call`'s); and a body over the operation's limit is refused without being read.
 * Each test is an attack on real endpoints with real flows waiting; the allowed requests (the real
 * SDK clients, signed with the tests' keys) show that each refusal is a refusal of the attacker.
 */
import { LambdaClient, SendDurableExecutionCallbackSuccessCommand } from '@aws-sdk/client-lambda';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { FLOW_COMPLETION_BODY_LIMIT, SEND_MESSAGE_BODY_LIMIT } from '../../local/body-limits';
import type { EndpointAccess } from '../../local/endpoint-access';
import { startEndpoints, type LocalEndpoints, type SentMessage } from '../../local/endpoints';
import { flowEngines, type EngineCompletion, type FlowEngines } from '../../local/flow-engines';
import { LOCAL_AWS_ACCESS, LOCAL_AWS_CREDENTIALS } from '../support/local-aws';
import { declareOnly, flood, floodHash, MB, signedHeaders } from './flood';
import { sendRaw, sendSigned, type Keys, type RawReply } from './raw-aws-request';

const MADE_UP: Keys = { accessKeyId: 'AKIAMADEUP0000000000', secretAccessKey: 'made-up-secret' };
/** Keys the endpoints know, that may invoke the tool handler and nothing else (what `local call` signs with). */
const CALLER: Keys = { accessKeyId: 'AKIACALLER0000000000', secretAccessKey: 'caller-secret' };
const ACCESS: EndpointAccess = {
  ...LOCAL_AWS_ACCESS,
  keys: new Map([...LOCAL_AWS_ACCESS.keys, [CALLER.accessKeyId, CALLER.secretAccessKey]]),
  invokesOnly: new Map([[CALLER.accessKeyId, 'tools']]),
};
const REGION = ACCESS.region;
/** Signers other than the allowed keys: who they are, and the error the endpoints answer them with. */
const OTHER_SIGNERS = [
  ['keys the endpoints do not know', MADE_UP, 'UnrecognizedClientException'],
  ['the keys that may only invoke the tool handler', CALLER, 'AccessDeniedException'],
] as const;
/** Far less than the flood's 256 MB, far more than any limit here and the sockets' buffers. */
const LET_IN = 64 * MB;

let endpoints: LocalEndpoints;
let engines: FlowEngines;
const delivered: SentMessage[] = [];
let sequence = 0;

beforeAll(async () => {
  engines = flowEngines();
  endpoints = await startEndpoints({ onMessage: (message) => delivered.push(message), completeFlow: engines.complete }, ACCESS);
});
afterAll(() => endpoints.close());

const SEND_MESSAGE = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' };
const SEND_TASK_SUCCESS = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AWSStepFunctions.SendTaskSuccess' };
const callbackPath = (id: string) => `/2025-12-01/durable-execution-callbacks/${encodeURIComponent(id)}/succeed`;
const forgedMessage = () => JSON.stringify({ QueueUrl: `${endpoints.url}/000000000000/tools`, MessageBody: '{"tool":"refund","args":{"orderId":"forged"}}' });
const forgedOutput = JSON.stringify({ status: 'ok', result: { refunded: 'forged' } });

function expectRefused(reply: RawReply, type: string): void {
  expect(reply.status).toBe(403);
  const errorType = reply.headers['x-amzn-errortype'] ?? JSON.parse(reply.text).__type;
  expect(errorType).toBe(type);
}

/** A task that really waits with its token, and how to tell whether anything reached it. */
function waitingTask(): { token: string; completion: Promise<EngineCompletion>; reached: () => boolean } {
  const token = `AQCEAAAAKgAAAA-task-token-${++sequence}`;
  return waiting(token, engines.waitForTask(token));
}

function waitingCallback(): { token: string; completion: Promise<EngineCompletion>; reached: () => boolean } {
  const token = `callback-id-${++sequence}`;
  return waiting(token, engines.waitForCallback(token));
}

function waiting(token: string, completion: Promise<EngineCompletion>) {
  let done = false;
  void completion.then(() => (done = true));
  return { token, completion, reached: () => done || engines.received.some((c) => c.id === token) };
}

const sqs = (keys: Keys) => new SQSClient({ region: REGION, endpoint: endpoints.url, credentials: keys, maxAttempts: 1 });
const sfn = (keys: Keys) => new SFNClient({ region: REGION, endpoint: endpoints.url, credentials: keys, maxAttempts: 1 });
const lambda = (keys: Keys) => new LambdaClient({ region: REGION, endpoint: endpoints.url, credentials: keys, maxAttempts: 1 });

describe('SQS SendMessage', () => {
  beforeEach(() => {
    delivered.length = 0;
  });

  test('unsigned: refused (MissingAuthenticationToken), and no message is delivered', async () => {
    const reply = await sendRaw({ origin: endpoints.url, path: '/', headers: SEND_MESSAGE, body: forgedMessage() });
    expectRefused(reply, 'MissingAuthenticationTokenException');
    expect(delivered).toEqual([]);
  });

  test('signed with keys the endpoints do not know: refused (UnrecognizedClient), and no message is delivered', async () => {
    const sent = sqs(MADE_UP).send(new SendMessageCommand({ QueueUrl: `${endpoints.url}/000000000000/tools`, MessageBody: '{"tool":"refund"}' }));
    await expect(sent).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    await expect(sent).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    expect(delivered).toEqual([]);
  });

  test('signed with the keys that may only invoke the tool handler: refused (AccessDenied), and no message is delivered', async () => {
    const reply = await sendSigned({ origin: endpoints.url, path: '/', headers: SEND_MESSAGE, body: forgedMessage(), keys: CALLER, service: 'sqs', region: REGION });
    expectRefused(reply, 'AccessDeniedException');
    expect(delivered).toEqual([]);
  });

  test.each([
    ['another Host', { host: 'evil.example', service: 'sqs' }],
    ['another service (a signature for Lambda)', { service: 'lambda' }],
  ])('signed with the allowed keys but for %s: refused, and no message is delivered', async (_, signedFor) => {
    const reply = await sendSigned({ origin: endpoints.url, path: '/', headers: SEND_MESSAGE, body: forgedMessage(), keys: LOCAL_AWS_CREDENTIALS, region: REGION, ...signedFor });
    expectRefused(reply, 'InvalidSignatureException');
    expect(delivered).toEqual([]);
  });

  test('the allowed keys send it: delivered once, answered with the MD5 the SDK checks', async () => {
    const out = await sqs(LOCAL_AWS_CREDENTIALS).send(new SendMessageCommand({ QueueUrl: `${endpoints.url}/000000000000/tools`, MessageBody: '{"tool":"add"}' }));
    expect(out.MessageId).toEqual(expect.any(String));
    expect(delivered).toEqual([expect.objectContaining({ messageId: out.MessageId, body: '{"tool":"add"}' })]);
  });

  test('a message that is not a JSON object, signed: refused as SQS refuses it, and not delivered', async () => {
    const reply = await sendSigned({ origin: endpoints.url, path: '/', headers: SEND_MESSAGE, body: '[1]', keys: LOCAL_AWS_CREDENTIALS, service: 'sqs', region: REGION });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text).__type).toBe('com.amazonaws.sqs#InvalidParameterValue');
    expect(delivered).toEqual([]);
  });
});

describe("Step Functions' SendTaskSuccess, with the waiting task's real token", () => {
  test('unsigned: refused (MissingAuthenticationToken), and the task is not completed', async () => {
    const task = waitingTask();
    const reply = await sendRaw({ origin: endpoints.url, path: '/', headers: SEND_TASK_SUCCESS, body: JSON.stringify({ taskToken: task.token, output: forgedOutput }) });
    expectRefused(reply, 'MissingAuthenticationTokenException');
    expect(task.reached()).toBe(false);
    // The token was real: the allowed keys complete the task with it.
    await sfn(LOCAL_AWS_CREDENTIALS).send(new SendTaskSuccessCommand({ taskToken: task.token, output: '{"status":"ok"}' }));
    expect(await task.completion).toMatchObject({ engine: 'sfn', ok: true, output: '{"status":"ok"}' });
  });

  test.each(OTHER_SIGNERS)('signed with %s: refused, and the task is not completed', async (_, keys, type) => {
    const task = waitingTask();
    const sent = sfn(keys).send(new SendTaskSuccessCommand({ taskToken: task.token, output: forgedOutput }));
    await expect(sent).rejects.toMatchObject({ name: type, $metadata: { httpStatusCode: 403 } });
    expect(task.reached()).toBe(false);
  });

  test('signed with the allowed keys for another Host: refused, and the task is not completed', async () => {
    const task = waitingTask();
    const body = JSON.stringify({ taskToken: task.token, output: forgedOutput });
    const reply = await sendSigned({ origin: endpoints.url, host: 'evil.example', path: '/', headers: SEND_TASK_SUCCESS, body, keys: LOCAL_AWS_CREDENTIALS, service: 'states', region: REGION });
    expectRefused(reply, 'InvalidSignatureException');
    expect(task.reached()).toBe(false);
  });
});

describe("Lambda's durable callback completion, with the waiting callback's real id", () => {
  test('unsigned: refused (MissingAuthenticationToken), and the callback is not completed', async () => {
    const callback = waitingCallback();
    const reply = await sendRaw({ origin: endpoints.url, path: callbackPath(callback.token), headers: { 'content-type': 'application/octet-stream' }, body: forgedOutput });
    expectRefused(reply, 'MissingAuthenticationTokenException');
    expect(callback.reached()).toBe(false);
    // The id was real: the allowed keys complete the callback with it.
    await lambda(LOCAL_AWS_CREDENTIALS).send(new SendDurableExecutionCallbackSuccessCommand({ CallbackId: callback.token, Result: Buffer.from('{"status":"ok"}') }));
    expect(await callback.completion).toMatchObject({ engine: 'durable', ok: true, output: '{"status":"ok"}' });
  });

  test.each(OTHER_SIGNERS)('signed with %s: refused, and the callback is not completed', async (_, keys, type) => {
    const callback = waitingCallback();
    const sent = lambda(keys).send(new SendDurableExecutionCallbackSuccessCommand({ CallbackId: callback.token, Result: Buffer.from(forgedOutput) }));
    await expect(sent).rejects.toMatchObject({ name: type, $metadata: { httpStatusCode: 403 } });
    expect(callback.reached()).toBe(false);
  });
});

test('endpoints without a handler for an operation refuse it as unknown: a message or completion goes to no other stand-in', async () => {
  const bare = await startEndpoints({}, ACCESS);
  try {
    const task = waitingTask();
    const body = JSON.stringify({ taskToken: task.token, output: forgedOutput });
    for (const [path, headers, service, text] of [
      ['/', SEND_MESSAGE, 'sqs', forgedMessage()],
      ['/', SEND_TASK_SUCCESS, 'states', body],
      [callbackPath('callback-id-none'), {}, 'lambda', forgedOutput],
    ] as const) {
      const reply = await sendSigned({ origin: bare.url, path, headers, body: text, keys: LOCAL_AWS_CREDENTIALS, service, region: REGION });
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.text).__type).toBe('UnknownOperationException');
    }
    expect(task.reached()).toBe(false);
  } finally {
    await bare.close();
  }
});

describe('a body over the limit is refused without being read past it', () => {
  let payloadHash: string;
  beforeAll(() => {
    payloadHash = floodHash();
  });

  const DOORS = [
    ['SendMessage', () => `${endpoints.url}/`, SEND_MESSAGE, 'sqs', SEND_MESSAGE_BODY_LIMIT],
    ['SendTaskSuccess', () => `${endpoints.url}/`, SEND_TASK_SUCCESS, 'states', FLOW_COMPLETION_BODY_LIMIT],
    ['a durable callback', () => `${endpoints.url}${callbackPath('callback-id-flood')}`, { 'content-type': 'application/octet-stream' }, 'lambda', FLOW_COMPLETION_BODY_LIMIT],
  ] as const;

  test.each(DOORS)('%s: a declared Content-Length over the limit is answered before a byte is sent: unsigned 403, signed 413', async (_, url, headers, service) => {
    expect(await declareOnly(url(), headers)).toBe(403);
    const signed = await signedHeaders(url(), { keys: LOCAL_AWS_CREDENTIALS, service, region: REGION, headers, payloadHash });
    expect(await declareOnly(url(), signed)).toBe(413);
  });

  test.each(DOORS)('%s: a 256 MB body streamed without a length, signed, is refused with 413 at the limit and the connection closes', async (_, url, headers, service, limit) => {
    const before = delivered.length;
    const received = engines.received.length;
    const signed = await signedHeaders(url(), { keys: LOCAL_AWS_CREDENTIALS, service, region: REGION, headers, payloadHash });
    const flooded = await flood(url(), signed);
    expect(flooded.closed).toBe(true);
    expect(flooded.sent).toBeLessThan(LET_IN);
    if (flooded.status !== undefined) expect(flooded.status).toBe(413);
    expect(limit).toBeLessThan(LET_IN);
    expect(delivered.length).toBe(before);
    expect(engines.received.length).toBe(received);
  });

  test.each(DOORS)('%s: the same body unsigned is refused from its headers (403) and the connection closes', async (_, url, headers) => {
    const flooded = await flood(url(), headers);
    expect(flooded.closed).toBe(true);
    expect(flooded.sent).toBeLessThan(LET_IN);
    if (flooded.status !== undefined) expect(flooded.status).toBe(403);
  });

  test('SendMessage: a body just over the limit, signed, is a 413 as SQS words it; one just under it is read (and delivered)', async () => {
    delivered.length = 0;
    const queue = `${endpoints.url}/000000000000/tools`;
    const envelope = JSON.stringify({ QueueUrl: queue, MessageBody: '' });
    const fits = JSON.stringify({ QueueUrl: queue, MessageBody: 'a'.repeat(SEND_MESSAGE_BODY_LIMIT - envelope.length) });
    const over = `${fits} `;
    const refused = await sendSigned({ origin: endpoints.url, path: '/', headers: SEND_MESSAGE, body: over, keys: LOCAL_AWS_CREDENTIALS, service: 'sqs', region: REGION });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text)).toEqual({ __type: 'RequestEntityTooLargeException', message: `Request must be smaller than ${SEND_MESSAGE_BODY_LIMIT} bytes for the SendMessage operation` });
    expect(delivered).toEqual([]);
    const read = await sendSigned({ origin: endpoints.url, path: '/', headers: SEND_MESSAGE, body: fits, keys: LOCAL_AWS_CREDENTIALS, service: 'sqs', region: REGION });
    expect(read.status).toBe(200);
    expect(delivered).toHaveLength(1);
  });
});

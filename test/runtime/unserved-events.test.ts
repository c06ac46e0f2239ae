/**
 * Events of kinds the handler does not serve are refused with a `ToolUsageError` that names what
 * arrived, not only that the envelope lacks `tool`. Real samples, copied into
 * test/fixtures/events/ (README there names each source and commit): Powertools TypeScript's parser
 * events (S3, SNS, Kinesis, DynamoDB streams, API Gateway REST and HTTP, ALB, Kafka), aws-lambda-go's
 * Amazon MQ events, Powertools for Python's Bedrock Agents API-schema event.
 */
import * as z from 'zod';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor } from '../../lambda';
import activeMq from '../fixtures/events/activemq-event.json';
import alb from '../fixtures/events/alb-base.json';
import apiGatewayHttp from '../fixtures/events/apigw-http-no-auth.json';
import apiGatewayRest from '../fixtures/events/apigw-rest-no-auth.json';
import bedrockApiSchema from '../fixtures/events/bedrockAgentEvent.json';
import dynamodb from '../fixtures/events/dynamodb-base.json';
import kafka from '../fixtures/events/kafka-base.json';
import kinesis from '../fixtures/events/kinesis-stream.json';
import rabbitMq from '../fixtures/events/rabbitmq-event.json';
import s3 from '../fixtures/events/s3-base.json';
import sns from '../fixtures/events/sns-base.json';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const runs: string[] = [];
const echo = tool({ name: 'echo', input: z.object({ text: z.string() }), run: ({ text }) => runs.push(text) && text });
const handler = toolHandler(new ToolExecutor({ tools: [echo], approvals: new MemoryApprovalStore() }), { replies: false });

const TAIL = '; the handler takes tool calls only.';

test.each([
  ['S3', s3, 'an event from S3: `Records[0].eventSource` is `aws:s3`'],
  ['SNS', sns, 'an event from SNS: `Records[0].EventSource` is `aws:sns`'],
  ['Kinesis', kinesis, 'an event from Kinesis: `Records[0].eventSource` is `aws:kinesis`'],
  ['DynamoDB streams', dynamodb, 'an event from a DynamoDB stream: `Records[0].eventSource` is `aws:dynamodb`'],
  ['Kafka (MSK)', kafka, 'an event from Kafka: `eventSource` is `aws:kafka`'],
  ['Amazon MQ (ActiveMQ)', activeMq, 'an event from Amazon MQ: `eventSource` is `aws:mq`'],
  ['Amazon MQ (RabbitMQ)', rabbitMq, 'an event from Amazon MQ: `eventSource` is `aws:rmq`'],
  ['API Gateway (REST)', apiGatewayRest, 'an HTTP request (API Gateway, ALB, a function URL): `requestContext` is set'],
  ['API Gateway (HTTP API)', apiGatewayHttp, 'an HTTP request (API Gateway, ALB, a function URL): `requestContext` is set'],
  ['ALB', alb, 'an HTTP request (API Gateway, ALB, a function URL): `requestContext` is set'],
  [
    'Bedrock Agents, an API schema',
    bedrockApiSchema,
    'a Bedrock Agents API-schema call: `apiPath` is set, only function details are served',
  ],
])('a real %s event is refused, naming what arrived', async (_kind, event, what) => {
  await expect(handler(event, lambdaContext(10_000, 'req-unserved'))).rejects.toMatchObject({
    name: 'ToolUsageError',
    retryable: false,
    message: `Invalid event: ${what}${TAIL}`,
  });
  // Refused like any delivery: one log line naming the error, never a run.
  expect(logs.lines().filter((line) => line.message === 'tool call')).toEqual([
    expect.objectContaining({ message_id: 'req-unserved', source: 'lambda', error: expect.objectContaining({ type: 'ToolUsageError' }) }),
  ]);
  expect(runs).toEqual([]);
});

test('an SQS batch with a record of another source names that record', async () => {
  const mixed = { Records: [sqsRecord('m1', { tool: 'echo', args: { text: 'a' } }), s3.Records[0]] };
  await expect(handler(mixed, lambdaContext(10_000))).rejects.toMatchObject({
    message: `Invalid event: an event from S3: \`Records[1].eventSource\` is \`aws:s3\`${TAIL}`,
  });
  expect(runs).toEqual([]);
});

test('an unknown source is named by its field, never by its value (the caller wrote it)', async () => {
  await expect(handler({ Records: [{ eventSource: 'aws:ses\u0007SECRET' }] }, lambdaContext(10_000))).rejects.toMatchObject({
    message: `Invalid event: an event from another source: \`Records[0].eventSource\` names a source the handler does not know${TAIL}`,
  });
});

test('any other object that is no envelope is refused with its top-level keys (never their values)', async () => {
  const event = { awslogs: { data: 'secret-data' }, detail: 1 };
  const refusal = handler(event, lambdaContext(10_000));
  await expect(refusal).rejects.toMatchObject({
    name: 'ToolUsageError',
    message: 'Invalid envelope: needs `tool` (a call) or `approval_id` (a resume of a decided approval); got the keys "awslogs","detail".',
  });
  await expect(handler({}, lambdaContext(10_000))).rejects.toMatchObject({ message: expect.stringMatching(/; got an empty object\.$/) });
});

test('an envelope that happens to carry such a key is still read as an envelope', async () => {
  await expect(handler({ tool: 'echo', args: { text: 'x' }, eventSource: 'aws:s3' }, lambdaContext(10_000))).rejects.toMatchObject({
    message: 'Invalid envelope: key `eventSource` is not allowed in a call (allowed: `tool`, `args`, `run_id`, `call_id`, `reply_to`, `trace`).',
  });
});

test('SQS batches are still served', async () => {
  await expect(handler(sqsEvent(sqsRecord('m2', { tool: 'echo', args: { text: 'b' } })), lambdaContext(10_000))).resolves.toEqual({
    batchItemFailures: [],
  });
  expect(runs).toEqual(['b']);
  runs.length = 0;
});

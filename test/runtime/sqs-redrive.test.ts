/**
 * A record redriven from a dead-letter queue: its attributes carry `DeadLetterQueueSourceArn`,
 * and its `source` is that queue's, so a call without ids keeps the ids of its first delivery. The
 * record is Powertools for Python's real sample `tests/events/sqsDlqTriggerEvent.json` (copied into
 * test/fixtures/events/), with an envelope as its body.
 */
import * as z from 'zod';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type Reply, type ReplyPublisher } from '../../lambda';
import dlqEvent from '../fixtures/events/sqsDlqTriggerEvent.json';
import { captureLogs, lambdaContext } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const [sample] = dlqEvent.Records;
const SOURCE_QUEUE = sample.attributes.DeadLetterQueueSourceArn;
const envelope = JSON.stringify({ tool: 'charge', args: { amount: 3 } });

function setUp() {
  const runs: number[] = [];
  const published: Reply[] = [];
  const replies: ReplyPublisher = { publish: async (reply) => void published.push(reply as Reply) };
  const charge = tool({ name: 'charge', input: z.object({ amount: z.number() }), run: ({ amount }) => runs.push(amount) && amount });
  const handler = toolHandler(new ToolExecutor({ tools: [charge], approvals: new MemoryApprovalStore() }), { replies });
  return { handler, runs, published };
}

test('the redriven record takes its source queue as source: the same ids as its first delivery, so the kept reply answers', async () => {
  const { handler, runs, published } = setUp();
  const firstDelivery = { ...sample, body: envelope, eventSourceARN: SOURCE_QUEUE, attributes: { ...sample.attributes, DeadLetterQueueSourceArn: undefined } };
  const redriven = { ...sample, body: envelope };
  expect(await handler({ Records: [firstDelivery] }, lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
  expect(await handler({ Records: [redriven] }, lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
  expect(published).toHaveLength(2);
  expect(published[1].run_id).toBe(published[0].run_id);
  expect(published[1].call_id).toBe(published[0].call_id);
  expect(runs).toEqual([3]);
  const sources = logs.lines().filter((line) => line.message === 'tool call').map((line) => line.source);
  expect(sources).toEqual([`sqs:${SOURCE_QUEUE}`, `sqs:${SOURCE_QUEUE}`]);
});

test.each([
  ['missing', undefined],
  ['empty', ''],
  ['not a string', 7],
])('an attribute that is %s is ignored: the record\'s own queue is the source', async (_label, value) => {
  const { handler } = setUp();
  const record = { ...sample, body: envelope, attributes: { ...sample.attributes, DeadLetterQueueSourceArn: value } };
  await handler({ Records: [record] }, lambdaContext(10_000));
  expect(logs.lines().find((line) => line.message === 'tool call')).toMatchObject({ source: `sqs:${sample.eventSourceARN}` });
});

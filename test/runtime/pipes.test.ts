/** EventBridge Pipes with an SQS source: the event is a bare array of SQS records. */
import * as z from 'zod';
import { tool, toolHandler, ToolExecutor, ToolUsageError } from '../../lambda';
import { captureLogs, fifoRecord, lambdaContext, sqsRecord } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const add = tool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b });
const handler = toolHandler(new ToolExecutor({ tools: [add], approvals: false, calls: false }), { replies: false });

describe('EventBridge Pipes batches', () => {
  test('an array of SQS records is an SQS batch: same ids, same batchItemFailures', async () => {
    const result = await handler(
      [sqsRecord('ok', { tool: 'add', args: { a: 1, b: 2 } }), sqsRecord('bad', { tool: 'add', args: { a: 'x' } }), sqsRecord('nope', { tool: 'nope' })],
      lambdaContext(10_000),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }, { itemIdentifier: 'nope' }] });
    expect(logs.lines().map((line) => line.source)).toEqual(Array(3).fill('sqs:arn:aws:sqs:us-east-1:123456789012:tool-calls'));
  });

  test('an empty array is an empty batch', async () => {
    await expect(handler([], lambdaContext(10_000))).resolves.toEqual({ batchItemFailures: [] });
  });

  test('FIFO records in an array keep their group order and stop a group at its first failure', async () => {
    const result = await handler(
      [
        fifoRecord('a1', 'A', { tool: 'add', args: { a: 1, b: 1 } }),
        fifoRecord('a2', 'A', { tool: 'add', args: {} }),
        fifoRecord('a3', 'A', { tool: 'add', args: { a: 1, b: 1 } }),
        fifoRecord('b1', 'B', { tool: 'add', args: { a: 1, b: 1 } }),
      ],
      lambdaContext(10_000),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'a2' }, { itemIdentifier: 'a3' }] });
  });

  test('a zero budget fails every record of the array for a retry', async () => {
    await expect(handler([sqsRecord('m', { tool: 'add', args: { a: 1, b: 1 } })], lambdaContext(500))).resolves.toEqual({
      batchItemFailures: [{ itemIdentifier: 'm' }],
    });
  });

  test.each([
    ['an array of envelopes', [{ tool: 'add', args: { a: 1, b: 2 } }], 0],
    ['an array of numbers', [1, 2], 0],
    ['SQS records mixed with something else', [sqsRecord('m', { tool: 'add' }), { eventSource: 'aws:kinesis' }], 1],
    ['an array holding null', [null], 0],
  ])('any other array is a ToolUsageError, thrown: %s', async (_name, event, index) => {
    const error = await handler(event, lambdaContext(10_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolUsageError);
    expect((error as Error).message).toBe(
      'Invalid event: an array event must be a list of SQS records (EventBridge Pipes with an SQS source), ' +
        `but element [${index}] is not one (it needs \`eventSource\` "aws:sqs").`,
    );
  });
});

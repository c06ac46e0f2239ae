/**
 * SQS-shaped events whose fields have the wrong type never make a TypeError
 * escape: every failure is a runtime error, a batch is answered (or, when a record cannot be
 * reported by id, refused as a whole with a ToolUsageError naming the field).
 */
import * as z from 'zod';
import { tool, toolHandler, ToolExecutor, ToolUsageError } from '../../lambda';
import { captureLogs, fifoRecord, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const order: string[] = [];
const echo = tool({
  name: 'echo',
  input: z.object({ id: z.string().optional() }),
  run: (args) => {
    if (args.id) order.push(args.id);
    return args;
  },
});
const handler = toolHandler(new ToolExecutor({ tools: [echo], approvals: false, calls: false }), { replies: false });
const context = () => lambdaContext(10_000);

describe('SQS record fields of the wrong type', () => {
  test("the issue's event: a numeric eventSourceARN fails that record, with a ToolUsageError naming the field", async () => {
    const event = { Records: [{ eventSource: 'aws:sqs', eventSourceARN: 1, messageId: 'm', body: '{"tool":"echo"}' }] };
    await expect(handler(event, context())).resolves.toEqual({ batchItemFailures: [{ itemIdentifier: 'm' }] });
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({
        message_id: 'm',
        error: { type: 'ToolUsageError', message: 'Invalid SQS record: `eventSourceARN` must be a string, got a number.', retryable: false },
      }),
    );
  });

  test('a non-string body fails that record alone; the others run', async () => {
    const bad = { ...sqsRecord('bad', {}), body: { tool: 'echo' } as unknown as string };
    const result = await handler(sqsEvent(sqsRecord('good', { tool: 'echo' }), bad), context());
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({ message_id: 'bad', error: expect.objectContaining({ message: 'Invalid SQS record: `body` must be a string, got a object.' }) }),
    );
  });

  test.each([
    ['missing', undefined, 'undefined (missing)'],
    ['a number', 7, 'a number'],
    ['empty', '', 'an empty string'],
    ['null', null, 'null'],
  ])('a record whose messageId is %s cannot be reported: the batch is refused with a ToolUsageError', async (_name, messageId, got) => {
    const record = { ...sqsRecord('x', { tool: 'echo' }), messageId: messageId as unknown as string };
    const error = await handler(sqsEvent(sqsRecord('ok', { tool: 'echo' }), record), context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolUsageError);
    expect((error as Error).message).toBe(
      `Invalid SQS batch: Records[1].messageId must be a non-empty string, got ${got}; ` +
        'a record without an id cannot be reported failed, so the batch is refused as a whole.',
    );
  });

  test('records without attributes (or with malformed ones) in a FIFO batch share one ordered group', async () => {
    order.length = 0;
    const { attributes: _a, ...noAttributes } = fifoRecord('f1', 'A', { tool: 'echo', args: { id: 'f1' } });
    const malformed = { ...fifoRecord('f2', 'A', { tool: 'echo', args: { id: 'f2' } }), attributes: 'x' as never };
    const grouped = fifoRecord('f3', 'B', { tool: 'echo', args: { id: 'f3' } });
    const result = await handler(sqsEvent(noAttributes as never, malformed, grouped), context());
    expect(result).toEqual({ batchItemFailures: [] });
    expect(order.filter((id) => id !== 'f3')).toEqual(['f1', 'f2']);
  });

  test('a record that is not an SQS record makes the event no SQS batch: refused, naming the field', async () => {
    await expect(handler({ Records: [null] }, context())).rejects.toMatchObject({ name: 'ToolUsageError', message: expect.stringContaining('`Records[0].eventSource` is missing') });
  });
});

/**
 * The SQS deadline once a tool has returned: the record counts as done even when the store's
 * finish or the reply bus is still busy, and the batch is answered before the invocation ends.
 */
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import type { CallKey } from '../../lambda/stores/types';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const never = () => new Promise<never>(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A memory store whose `finish` never answers. */
class HangingFinishStore extends MemoryApprovalStore {
  override finish(_key: CallKey, _token: string, _reply: unknown): Promise<void> {
    return never();
  }
}

describe('SQS records after their tool returned', () => {
  test('a finish that never answers: the record is not failed and the batch returns before the invocation ends', async () => {
    let runs = 0;
    const charge = tool({ name: 'charge', run: () => ++runs });
    const handler = toolHandler(new ToolExecutor({ tools: [charge], approvals: new HangingFinishStore() }), { replies: false });
    const started = Date.now();
    const result = await handler(sqsEvent(sqsRecord('m-1', { tool: 'charge' })), lambdaContext(1500));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(runs).toBe(1);
  });

  test('a reply bus that never answers: the record whose tool ran counts as done when the invocation must return', async () => {
    const replies: ReplyPublisher = { publish: never };
    const quick = tool({ name: 'quick', run: () => 'ok' });
    const slow = tool({ name: 'slow', run: () => sleep(5_000) });
    const handler = toolHandler(new ToolExecutor({ tools: [quick, slow], approvals: false, calls: false }), { replies });
    const started = Date.now();
    const result = await handler(sqsEvent(sqsRecord('ran', { tool: 'quick' }), sqsRecord('cut', { tool: 'slow' })), lambdaContext(1500));
    expect(Date.now() - started).toBeLessThan(1500);
    // `slow` was cut by the deadline (500 ms): failed; `quick` ran: done.
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'cut' }] });
    expect(logs.lines()).toContainEqual(
      expect.objectContaining({ level: 'WARN', message_id: 'ran', message: expect.stringMatching(/still being published/) }),
    );
  });
});

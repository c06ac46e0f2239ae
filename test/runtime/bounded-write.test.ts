import { POST_RUN_WRITE_MARGIN_MS, writeAfterRun } from '../../lambda/bounded-write';
import { captureLogs } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const fields = { run_id: 'r', call_id: 'c' };
const never = () => new Promise<void>(() => undefined);

describe('writeAfterRun', () => {
  test('a write that finishes in time: true, and no warning', async () => {
    await expect(writeAfterRun('finish', async () => undefined, Date.now() + 5_000, fields)).resolves.toBe(true);
    expect(logs.lines()).toEqual([]);
  });

  test('a write that hangs is waited for until the invocation end less the margin, then a warning', async () => {
    const end = Date.now() + 400;
    await expect(writeAfterRun('finish', never, end, fields)).resolves.toBe(false);
    const returned = Date.now();
    expect(returned).toBeGreaterThanOrEqual(end - POST_RUN_WRITE_MARGIN_MS - 5);
    expect(returned).toBeLessThan(end);
    expect(logs.lines()).toEqual([
      expect.objectContaining({ level: 'WARN', operation: 'finish', run_id: 'r', call_id: 'c', message: expect.stringMatching(/did not finish before the invocation's end/) }),
    ]);
  });

  test('a write that fails: false, and a warning naming the error; nothing thrown', async () => {
    const failing = () => Promise.reject(new Error('throttled'));
    await expect(writeAfterRun('complete', failing, Date.now() + 5_000, { approval_id: 'a' })).resolves.toBe(false);
    expect(logs.lines()).toEqual([expect.objectContaining({ level: 'WARN', operation: 'complete', approval_id: 'a', error: 'throttled' })]);
  });

  test('a write that throws synchronously is caught as well', async () => {
    const throwing = () => {
      throw new TypeError('bad');
    };
    await expect(writeAfterRun('abandon', throwing, Date.now() + 5_000, fields)).resolves.toBe(false);
  });

  test('with the bound already past, the write is still started, and the call returns at once', async () => {
    let started = 0;
    const slow = () => {
      started++;
      return new Promise<void>((resolve) => setTimeout(resolve, 200));
    };
    const before = Date.now();
    await expect(writeAfterRun('finish', slow, Date.now() - 1, fields)).resolves.toBe(false);
    expect(started).toBe(1);
    expect(Date.now() - before).toBeLessThan(100);
  });
});

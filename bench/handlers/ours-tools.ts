/** The sample app's tools, plus the bench's no-op, read-only, rate-limited and 100 ms tools. */
import { tool } from '../../lambda';
import { AddInput, NoopInput, RefundInput, runAdd, runNoop, runRefund, runSleep, SleepInput } from './schemas';

export const tools = [
  tool({ name: 'add', input: AddInput, run: runAdd }),
  tool({ name: 'refund', input: RefundInput, requiresApproval: true, run: runRefund }),
  tool({ name: 'noop', input: NoopInput, run: runNoop }),
  tool({ name: 'peek', input: NoopInput, readOnly: true, run: runNoop }),
  // A limit no bench reaches: what counting a call costs, not a refusal.
  tool({ name: 'limited', input: NoopInput, rateLimit: { limit: 1_000_000_000, window: 3600 }, run: runNoop }),
  tool({ name: 'sleep', input: SleepInput, run: (args, { signal }) => runSleep(args, signal) }),
];

/**
 * The tools' input schemas, shared by both real handlers so that both validate exactly the same
 * args. Both sides import zod as `import * as z from 'zod'` (what lambda/ does; the tree-shakable
 * form), so the comparison is not skewed by how zod is imported in bench code.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';

export const AddInput = z.object({ a: z.number(), b: z.number() });
export const RefundInput = z.object({ orderId: z.string().min(1) });
/** The no-op tool of the throughput figure. */
export const NoopInput = z.object({});
/** The 100 ms tool of the batch parallelism figure. */
export const SleepInput = z.object({ ms: z.number().int().min(0).max(10_000) });

export const runAdd = ({ a, b }: z.output<typeof AddInput>) => a + b;
export const runRefund = async ({ orderId }: z.output<typeof RefundInput>) => ({ refunded: orderId });
export const runNoop = () => null;
export const runSleep = async ({ ms }: z.output<typeof SleepInput>, signal?: AbortSignal) => {
  await sleep(ms, undefined, { signal });
  return { slept: ms };
};

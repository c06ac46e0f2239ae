/**
 * Store writes that follow a tool run (finish, complete, abandon, release). Once the tool has run,
 * such a write is bookkeeping: it must not hold the invocation past its end (Lambda would kill it
 * and the delivery would count as failed, so the tool would run again), and its failure must not
 * fail the delivery. So it is bounded by the invocation's end minus a safety margin, and a write
 * that fails or does not finish in time only logs a warning line. A write that is still in flight
 * at the bound goes on in the background.
 */
import { logWarning } from './log';

/** Time kept back from the invocation's end after a post-run write, to return the result. */
export const POST_RUN_WRITE_MARGIN_MS = 250;

/** What the warning line names (e.g. `run_id`, `call_id`, `approval_id`). */
export type WriteLogFields = Record<string, string | undefined>;

/** The warning line's fields for one call: its ids, and its approval when it has one. */
export function callFields(call: { readonly runId: string; readonly callId: string; readonly approvalId?: string }): WriteLogFields {
  return { run_id: call.runId, call_id: call.callId, ...(call.approvalId === undefined ? {} : { approval_id: call.approvalId }) };
}

/**
 * Runs `write`, waiting for it at most until `invocationEnd - POST_RUN_WRITE_MARGIN_MS` (it is
 * started even when that time has passed). Never throws; resolves `true` when the write succeeded
 * in time, `false` (after a warning line) when it failed or was still running at the bound.
 */
export async function writeAfterRun(
  operation: string,
  write: () => Promise<unknown>,
  invocationEnd: number,
  fields: WriteLogFields,
): Promise<boolean> {
  const settled = Promise.resolve()
    .then(write)
    .then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, invocationEnd - POST_RUN_WRITE_MARGIN_MS - Date.now()));
  });
  try {
    const outcome = await Promise.race([settled, late]);
    if (outcome === 'late') {
      logWarning(`state store ${operation} did not finish before the invocation's end; it goes on in the background`, {
        ...fields,
        operation,
      });
      return false;
    }
    if (!outcome.ok) {
      const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      logWarning(`state store ${operation} failed after the tool ran`, { ...fields, operation, error: message });
      return false;
    }
    return true;
  } finally {
    clearTimeout(timer);
  }
}

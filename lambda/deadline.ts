import { ToolTimeout } from './errors';

/**
 * A call's time bounds: one object from the event adapter down to the tool. `toolHandler` starts one
 * per invocation and every call of the invocation shares it; the public `handleEnvelope` starts one
 * per call from its numeric options.
 */
export interface Deadline {
  /** Epoch ms by which the tool must have finished. */
  readonly at: number;
  /** Aborts at `at` at the latest, with a `ToolTimeout` as its reason; the tool gets it as is. */
  readonly signal: AbortSignal;
  /** Epoch ms at which leases and claims taken for the call lapse. */
  readonly invocationEnd: number;
}

/** A deadline with its timer; `end()` clears the timer once nothing waits for it any more. */
export interface StartedDeadline extends Deadline {
  end(): void;
}

/**
 * Starts a deadline at `at`: its signal aborts then with a `ToolTimeout` saying `timeoutMessage`, or
 * earlier, with the same error, when `abortOn` (a caller's signal) aborts.
 */
export function startDeadline(at: number, invocationEnd: number, timeoutMessage: string, abortOn?: AbortSignal): StartedDeadline {
  const controller = new AbortController();
  const expire = () => controller.abort(new ToolTimeout(timeoutMessage));
  const budget = at - Date.now();
  let timer: NodeJS.Timeout | undefined;
  if (budget <= 0 || abortOn?.aborted) expire();
  else {
    timer = setTimeout(expire, budget);
    abortOn?.addEventListener('abort', expire, { once: true });
  }
  return {
    at,
    invocationEnd,
    signal: controller.signal,
    end: () => {
      clearTimeout(timer);
      abortOn?.removeEventListener('abort', expire);
    },
  };
}

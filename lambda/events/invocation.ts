import type { Context } from 'aws-lambda';
import { ToolTimeout } from '../errors';
import type { ToolExecutor } from '../executor';
import type { ReplyPublisher } from '../reply-bus';

/** What `toolHandler` fixed once, when it was called. */
export interface HandlerSettings {
  readonly executor: ToolExecutor;
  /** `undefined` allows every tool the executor has. */
  readonly allowed: ReadonlySet<string> | undefined;
  readonly timeoutMs: number;
  readonly marginMs: number;
  readonly concurrency: number;
  readonly replies: ReplyPublisher | undefined;
}

/** One Lambda invocation's budget (§6). */
export interface Invocation extends HandlerSettings {
  /** Epoch ms by which every tool must finish. */
  readonly deadline: number;
  /** Epoch ms at which the Lambda invocation itself ends: leases and claims lapse then. */
  readonly invocationEnd: number;
  /**
   * Epoch ms by which a batch's answer is returned: the invocation's end less `RETURN_MARGIN_MS`,
   * never before the deadline. Post-run store writes are bounded to end before it.
   */
  readonly returnBy: number;
  /** The deadline budget; zero or less means nothing may run. */
  readonly budgetMs: number;
  /** Aborts at the deadline, with a `ToolTimeout` as its reason. */
  readonly signal: AbortSignal;
  /** Resolves at the deadline. */
  readonly expired: Promise<void>;
  end(): void;
}

/** Time kept back from the invocation's end to return a batch's answer. */
export const RETURN_MARGIN_MS = 100;

/** The deadline is now + min(timeout, remaining - margin). */
export function startInvocation(settings: HandlerSettings, context: Partial<Context> | undefined): Invocation {
  const now = Date.now();
  const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  const budgetMs = remaining === undefined ? settings.timeoutMs : Math.min(settings.timeoutMs, remaining - settings.marginMs);
  const deadline = now + budgetMs;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    const expire = () => {
      controller.abort(new ToolTimeout(`The invocation's ${budgetMs} ms budget for tools ran out.`));
      resolve();
    };
    if (budgetMs <= 0) expire();
    else timer = setTimeout(expire, budgetMs);
  });
  const invocationEnd = remaining === undefined ? deadline : now + remaining;
  return {
    ...settings,
    deadline,
    invocationEnd,
    returnBy: Math.max(deadline, invocationEnd - RETURN_MARGIN_MS),
    budgetMs,
    signal: controller.signal,
    expired,
    end: () => clearTimeout(timer),
  };
}

import type { Context } from 'aws-lambda';
import { startDeadline, type StartedDeadline } from '../deadline';
import type { Redelivery } from '../delivery';
import type { ToolExecutor } from '../executor';
import type { ResultDispatcher } from '../results/dispatch';
import type { ResultOffload } from '../result-offload';

/** What `toolHandler` fixed once, when it was called. */
export interface HandlerSettings {
  readonly executor: ToolExecutor;
  /** `undefined` allows every tool the executor has. */
  readonly allowed: ReadonlySet<string> | undefined;
  readonly timeoutMs: number;
  readonly marginMs: number;
  readonly concurrency: number;
  /** Where results go (the reply bus, a waiting flow): every delivery's end is handed to it. */
  readonly results: ResultDispatcher;
  /** The tool queue's `maxReceiveCount` (TOOL_HANDLER_MAX_RECEIVE_COUNT): its record's last delivery. */
  readonly maxReceiveCount: number | undefined;
  /** Where the hosts that can name a caller find what proves it. */
  readonly callers: CallerSettings;
  /** Where results too big for the way back go. @default - none */
  readonly offload?: ResultOffload;
}

/** Set by the construct (`addToGateway` with `callerIdentity`, `addToBedrockAgent` with `callerAttribute`), read once. */
export interface CallerSettings {
  /** The KMS key that signs Gateway callers' proofs (`TOOL_HANDLER_CALLER_KEY`); unset: no Gateway caller. */
  readonly proofKey?: string;
  /** The Bedrock Agents session attribute naming the end user (`TOOL_HANDLER_BEDROCK_CALLER_ATTRIBUTE`). */
  readonly bedrockAttribute?: string;
}

/** One Lambda invocation's budget. */
export interface Invocation extends HandlerSettings {
  /** By when every tool must finish, and when the Lambda invocation itself ends; its calls share it. */
  readonly deadline: StartedDeadline;
  /**
   * Epoch ms by which a batch's answer is returned: the invocation's end less `RETURN_MARGIN_MS`,
   * never before the deadline. Post-run store writes are bounded to end before it.
   */
  readonly returnBy: number;
  /** The deadline budget; zero or less means nothing may run. */
  readonly budgetMs: number;
}

/** Time kept back from the invocation's end to return a batch's answer. */
export const RETURN_MARGIN_MS = 100;

/** The deadline is now + min(timeout, remaining - margin). */
export function startInvocation(settings: HandlerSettings, context: Partial<Context> | undefined): Invocation {
  const now = Date.now();
  const remaining = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : undefined;
  const budgetMs = remaining === undefined ? settings.timeoutMs : Math.min(settings.timeoutMs, remaining - settings.marginMs);
  const at = now + budgetMs;
  const invocationEnd = remaining === undefined ? at : now + remaining;
  return {
    ...settings,
    deadline: startDeadline(at, invocationEnd, `The invocation's ${budgetMs} ms budget for tools ran out.`),
    returnBy: Math.max(at, invocationEnd - RETURN_MARGIN_MS),
    budgetMs,
  };
}

/**
 * Kept back from Lambda's earliest asynchronous retry when a lease is held until it: clocks differ,
 * and a crashed call's own retry must find the lease lapsed.
 */
const REDELIVERY_SAFETY_MS = 2000;

/**
 * Lambda retries a failed asynchronous invocation (an EventBridge rule's) after one minute at the
 * soonest ("How Lambda handles errors and retries with asynchronous invocation").
 */
const ASYNC_RETRY_DELAY_MS = 60_000;

/**
 * An SQS record is delivered again as the same message (its id), and only that: the lease holds
 * against every other delivery of the call while the call item lives, and the message's own
 * redelivery takes it over once this invocation has ended (`Redelivery.message`).
 */
export function sqsRedelivery(source: string, messageId: string): Redelivery {
  return { message: `${source}/${messageId}` };
}

/**
 * Lambda retries an asynchronous invocation as a new invocation of the same event, not as the same
 * message, so the lease holds only until that retry could come.
 */
export function asyncRetry(invocation: Invocation): Redelivery {
  return { at: invocation.deadline.invocationEnd + ASYNC_RETRY_DELAY_MS - REDELIVERY_SAFETY_MS };
}

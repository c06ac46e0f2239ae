/**
 * The runtime's errors. Every one has `name` set to its class name and a boolean `retryable`: whether
 * sending the same envelope again can succeed. Names are literals, not `constructor.name`, so that
 * they survive a minifying bundler.
 */

export interface ToolHandlerErrorOptions {
  readonly cause?: unknown;
  readonly retryable?: boolean;
}

/**
 * A configuration error: an option given in code or an environment variable that cannot be used,
 * found when a handler, executor, store or tool is built (never for a call). One style for all of
 * them: a `TypeError` whose message starts `cdk-tool-handler: ` and names the option or variable.
 */
export function configError(message: string): TypeError {
  return new TypeError(`cdk-tool-handler: ${message}`);
}

/** Base of every error the runtime throws for a call. */
export abstract class ToolHandlerError extends Error {
  abstract readonly retryable: boolean;

  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** A malformed envelope, bad args, or a request that can never succeed as sent. */
export class ToolUsageError extends ToolHandlerError {
  override readonly name: string = 'ToolUsageError';
  readonly retryable = false;
}

/** The tool is unknown, or not in the allowlist. */
export class ToolNotFound extends ToolHandlerError {
  override readonly name: string = 'ToolNotFound';
  readonly retryable = false;
}

/** The approval is missing or expired. */
export class ApprovalNotFound extends ToolHandlerError {
  override readonly name: string = 'ApprovalNotFound';
  readonly retryable = false;
}

/**
 * Base of every other failure of a call. Thrown as is for store failures (retryable) and for a
 * tool that needs approval when no approval store is configured (not retryable).
 */
export class AdapterError extends ToolHandlerError {
  override readonly name: string = 'AdapterError';
  readonly retryable: boolean;

  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, options);
    this.retryable = options?.retryable ?? false;
  }
}

/** The approval was denied. */
export class ApprovalDenied extends AdapterError {
  override readonly name: string = 'ApprovalDenied';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: false });
  }
}

/**
 * The tool threw, or returned something that is not JSON or too big for its way back. `cause` keeps
 * the original. Retryable, but for a result too big to travel: the same result would be again.
 */
export class ToolFailed extends AdapterError {
  override readonly name: string = 'ToolFailed';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: options?.retryable ?? true });
  }
}

/**
 * The tool ran, and its result does not match its `output` schema: the message names the paths
 * that failed and what they expected, never the values. Sending the call again runs the tool again.
 */
export class ToolOutputInvalid extends AdapterError {
  override readonly name: string = 'ToolOutputInvalid';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: false });
  }
}

/** The deadline passed before the tool finished. */
export class ToolTimeout extends AdapterError {
  override readonly name: string = 'ToolTimeout';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: true });
  }
}

/** The same call is running in another invocation. */
export class CallInProgress extends AdapterError {
  override readonly name: string = 'CallInProgress';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: true });
  }
}

/** The state store or the approvals engine is throttled, failing or unreachable; retrying helps. */
export class StoreUnavailable extends AdapterError {
  override readonly name: string = 'StoreUnavailable';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: true });
  }
}

/**
 * The state store cannot serve this request as it is set up: its table or an index is missing, its
 * key schema differs, or the role may not use it. No retry can fix that; the message says what to.
 */
export class StoreMisconfigured extends AdapterError {
  override readonly name: string = 'StoreMisconfigured';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: false });
  }
}

/**
 * The tool acts only for a verified caller (`requiresCaller`), and the call proves none: its host
 * named no caller, or one it could not verify. Refused before it runs or asks for approval.
 */
export class CallerRequired extends AdapterError {
  override readonly name: string = 'CallerRequired';
  constructor(message: string, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: false });
  }
}

/**
 * The call is over its tool's `rateLimit` for this window: it was not run, nor did it ask for
 * approval. `retry_after_s` (whole seconds, at least 1) is when the window ends.
 */
export class RateLimited extends AdapterError {
  override readonly name: string = 'RateLimited';
  /** Seconds until the window ends and a call may be counted again. */
  readonly retry_after_s: number;
  constructor(message: string, retryAfterS: number, options?: ToolHandlerErrorOptions) {
    super(message, { ...options, retryable: true });
    this.retry_after_s = retryAfterS;
  }
}

/** Wraps an unreachable or throttled store as a `StoreUnavailable`. */
export function storeUnavailable(operation: string, cause: unknown): StoreUnavailable {
  const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return new StoreUnavailable(`The state store failed during ${operation} (${detail}); retry later.`, { cause });
}

/** Anything unexpected is a retryable `AdapterError`: the delivery is retried, never dropped. */
export function asToolHandlerError(error: unknown): ToolHandlerError {
  if (error instanceof ToolHandlerError) return error;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new AdapterError(`Unexpected failure: ${message}`, { cause: error, retryable: true });
}

/** A tool that this handler does not have, or may not run. */
export function toolNotAllowed(name: string, known?: readonly string[]): ToolNotFound {
  const runs = known === undefined ? '' : known.length === 0 ? ' It runs no tool.' : ` It runs: ${namesOf(known)}.`;
  return new ToolNotFound(`Tool ${name} is unknown to this handler or not in its allowlist.${runs}`);
}

/** At most 20 names, then how many more: a handler of hundreds of tools still answers briefly. */
function namesOf(names: readonly string[]): string {
  return names.length <= 20 ? names.join(', ') : `${names.slice(0, 20).join(', ')} and ${names.length - 20} more`;
}

/** The ids of a call sent again with another tool or args. */
export function callIdsReused(runId: string, callId: string): ToolUsageError {
  return new ToolUsageError(`Call ${callId} of run ${runId} was first sent with another tool or args; a new call needs new ids.`);
}

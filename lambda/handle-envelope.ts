import { startCallDeadline, type Deadline } from './deadline';
import { parseEnvelope } from './envelope';
import { AdapterError, ToolHandlerError } from './errors';
import type { Redelivery, ToolExecutor } from './executor';
import { logCall } from './log';
import type { CallIdentity, Reply } from './reply';

export interface HandleEnvelopeOptions {
  /** Tools allowed to run (an allowlist). @default every tool the executor has */
  readonly tools?: readonly string[] | ReadonlySet<string>;
  /** The delivery's id; calls without ids derive theirs from it. @default - none: fresh random ids */
  readonly messageId?: string;
  /** Where the envelope came from. @default 'direct' */
  readonly source?: string;
  /** Epoch ms bounding the tool. @default now + 60 s */
  readonly deadline?: number;
  /** Epoch ms at which leases and claims taken for this call lapse. @default deadline */
  readonly invocationEnd?: number;
  /** Aborting it ends the call as a `ToolTimeout`. @default - none */
  readonly signal?: AbortSignal;
}

/** How the event adapters run one envelope: the invocation's deadline, shared by its calls. */
export interface ProcessEnvelopeOptions {
  readonly tools?: ReadonlySet<string>;
  readonly messageId?: string;
  readonly source: string;
  readonly deadline: Deadline;
  /** When the source delivers the envelope again should it fail. @default - never */
  readonly redelivery?: Redelivery;
}

/** How one envelope ended, with what is known of the call. */
export type EnvelopeOutcome =
  | { readonly ok: true; readonly reply: Reply; readonly identity: CallIdentity }
  | { readonly ok: false; readonly error: ToolHandlerError; readonly identity: CallIdentity };

const DEFAULT_DEADLINE_MS = 60_000;

/** Runs one call, or resumes one decided approval. Throws the runtime's errors (errors.ts). */
export async function handleEnvelope(
  executor: ToolExecutor,
  payload: unknown,
  options: HandleEnvelopeOptions = {},
): Promise<Reply> {
  const at = options.deadline ?? Date.now() + DEFAULT_DEADLINE_MS;
  const deadline = startCallDeadline(at, options.invocationEnd ?? at, options.signal);
  try {
    const outcome = await processEnvelope(executor, payload, {
      tools: toSet(options.tools),
      messageId: options.messageId,
      source: options.source ?? 'direct',
      deadline,
    });
    if (outcome.ok) return outcome.reply;
    throw outcome.error;
  } finally {
    deadline.end();
  }
}

/** `handleEnvelope` without the throw: the event adapters need the identity of failed calls. */
export async function processEnvelope(
  executor: ToolExecutor,
  payload: unknown,
  options: ProcessEnvelopeOptions,
): Promise<EnvelopeOutcome> {
  const started = Date.now();
  const { source } = options;
  let outcome: EnvelopeOutcome;
  try {
    const envelope = parseEnvelope(payload, { messageId: options.messageId, source });
    const execution = await executor.run(envelope, {
      allowed: options.tools,
      source,
      deadline: options.deadline,
      redelivery: options.redelivery,
    });
    outcome = execution.ok ? execution : { ok: false, error: asToolHandlerError(execution.error), identity: execution.identity };
  } catch (error) {
    outcome = { ok: false, error: asToolHandlerError(error), identity: {} };
  }
  logOutcome(outcome, options.messageId, source, started);
  return outcome;
}

/**
 * The outcome of a delivery that is refused before its payload is read (e.g. an SQS record whose
 * body is not a string), logged like any call.
 */
export function refusedDelivery(error: ToolHandlerError, options: { messageId?: string; source: string }): EnvelopeOutcome {
  const outcome: EnvelopeOutcome = { ok: false, error, identity: {} };
  logOutcome(outcome, options.messageId, options.source, Date.now());
  return outcome;
}

function logOutcome(outcome: EnvelopeOutcome, messageId: string | undefined, source: string, started: number): void {
  const identity = outcome.identity;
  logCall({
    tool: identity.tool ?? null,
    run_id: identity.runId ?? null,
    call_id: identity.callId ?? null,
    approval_id: (outcome.ok && 'approval_id' in outcome.reply ? outcome.reply.approval_id : identity.approvalId) ?? null,
    message_id: messageId ?? null,
    source,
    ...(outcome.ok
      ? { status: outcome.reply.status }
      : { error: { type: outcome.error.name, message: outcome.error.message, retryable: outcome.error.retryable } }),
    duration_ms: Date.now() - started,
  });
}

/** Anything unexpected is a retryable `AdapterError`: the delivery is retried, never dropped. */
export function asToolHandlerError(error: unknown): ToolHandlerError {
  if (error instanceof ToolHandlerError) return error;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new AdapterError(`Unexpected failure: ${message}`, { cause: error, retryable: true });
}

function toSet(tools: HandleEnvelopeOptions['tools']): ReadonlySet<string> | undefined {
  if (tools === undefined || tools instanceof Set) return tools as ReadonlySet<string> | undefined;
  return new Set(tools as readonly string[]);
}

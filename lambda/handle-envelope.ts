/**
 * The run path of one envelope, from its payload to its outcome (`runEnvelope`: parse, route, one
 * log line), and the public call around it (`handleEnvelope`: a deadline, then the reply or the throw).
 */
import { startDeadline } from './deadline';
import { endCall } from './call-ended';
import type { CallEnded, Delivery, EndedEnvelope, EnvelopeRouter, Outcome } from './delivery';
import { parseEnvelope, type Envelope } from './envelope';
import { asToolHandlerError } from './errors';
import type { Reply } from './reply';

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

const DEFAULT_DEADLINE_MS = 60_000;

/**
 * Runs one call, or resumes one decided approval, with the `ToolExecutor` given. Throws the
 * runtime's errors (errors.ts).
 */
export async function handleEnvelope(
  executor: EnvelopeRouter,
  payload: unknown,
  options: HandleEnvelopeOptions = {},
): Promise<Reply> {
  const at = options.deadline ?? Date.now() + DEFAULT_DEADLINE_MS;
  const timeoutMessage = `The call did not finish within its ${at - Date.now()} ms budget.`;
  const deadline = startDeadline(at, options.invocationEnd ?? at, timeoutMessage, options.signal);
  try {
    const { outcome } = await runEnvelope(executor, payload, {
      allowed: toSet(options.tools),
      source: options.source ?? 'direct',
      messageId: options.messageId,
      deadline,
    });
    if (outcome.ok) return outcome.reply;
    throw outcome.error;
  } finally {
    deadline.end();
  }
}

/** Parses the payload, routes the envelope and ends the call (its log line). Never rejects. */
export async function runEnvelope(executor: EnvelopeRouter, payload: unknown, delivery: Delivery): Promise<CallEnded> {
  const started = Date.now();
  let outcome: Outcome;
  let envelope: Envelope | undefined;
  try {
    envelope = parseEnvelope(payload, delivery);
    outcome = await executor.route(envelope, delivery);
  } catch (error) {
    outcome = { ok: false, error: asToolHandlerError(error), identity: {} };
  }
  return endCall(outcome, delivery, started, executor, envelope && (envelope.isResume ? RESUMED : envelope));
}

const RESUMED: EndedEnvelope = { resume: true };

function toSet(tools: HandleEnvelopeOptions['tools']): ReadonlySet<string> | undefined {
  if (tools === undefined || tools instanceof Set) return tools as ReadonlySet<string> | undefined;
  return new Set(tools as readonly string[]);
}

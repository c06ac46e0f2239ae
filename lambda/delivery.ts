/**
 * One envelope on the run path: what goes down with it (`Delivery`), what comes back up (`Outcome`),
 * and the log line it ends with. The event adapters, the executor and the call protocols all speak
 * these, so that no step imports another step of the chain for them.
 */
import type { Caller } from './caller';
import type { Deadline } from './deadline';
import type { Envelope } from './envelope';
import type { ToolHandlerError } from './errors';
import { logCall } from './log';
import { callMetrics, type MetricsSource } from './metrics/calls';
import type { CallIdentity, Reply } from './reply';

/** How one envelope was delivered: from where, for whom, and under which allowlist and deadline it runs. */
export interface Delivery {
  /** Tools allowed to run; `undefined` allows every tool the executor has. */
  readonly allowed: ReadonlySet<string> | undefined;
  /** Where the envelope came from, e.g. `sqs:<queue arn>`, `events:<source>`, `lambda`, `direct`. */
  readonly source: string;
  /** The delivery's id; a call without ids derives them from it. */
  readonly messageId: string | undefined;
  /** Whom the call acts for, as the host proved it (never the args). @default - none: the host proves nothing */
  readonly caller?: Caller;
  readonly deadline: Deadline;
  /** When the delivery's source delivers it again should it fail. @default - never: leases end with the invocation */
  readonly redelivery?: Redelivery;
  /**
   * A resume in this delivery may claim only an approval whose call's `run_id` starts with this (a
   * host that may resume only the approvals its own calls requested); any other answers as missing,
   * and is never claimed. @default - any approval of the handler's owner
   */
  readonly resumeRunIdPrefix?: string;
}

/**
 * How a delivery's source delivers it again should it fail: the call's lease is held against every
 * other delivery until then, so a copy arriving meanwhile is answered without running the call (the
 * holder ran it, runs it, or comes back by itself), while the holder's own redelivery still runs it.
 */
export interface Redelivery {
  /**
   * Epoch ms before which the source cannot deliver it again.
   * @default - while the call item lives, when `message` is given
   */
  readonly at?: number;
  /**
   * The delivery's SQS message (`<source>/<messageId>`): its own redelivery takes the call over as
   * soon as this invocation has ended, and a copy of it is never acknowledged as held (SQS deletes a
   * message by its latest receipt). @default - none
   */
  readonly message?: string;
}

/** How one envelope ended: what every step after the executor reads, up to the host's answer. */
export type Outcome = Replied | Failed;

export interface Replied {
  readonly ok: true;
  readonly reply: Reply;
  /** The call the reply answers. */
  readonly identity: CallIdentity;
  /** The reply was kept from an earlier delivery of the call, which ran it (§6a). @default false */
  readonly kept?: boolean;
  /** A `pending_approval` reply's args: `Tool Approval Requested` events may carry them (§7); the reply never does. */
  readonly approvalArgs?: unknown;
}

export interface Failed {
  readonly ok: false;
  readonly error: ToolHandlerError;
  /** What became known of the call before it failed, to address the error reply. */
  readonly identity: CallIdentity;
}

/**
 * What hands a parsed envelope to the protocol that answers it: the `ToolExecutor`. Its owner and
 * tool names, when it has them, are the dimensions of its calls' metrics.
 */
export interface EnvelopeRouter extends MetricsSource {
  route(envelope: Envelope, delivery: Delivery): Promise<Outcome>;
}

/**
 * Writes the envelope's log line (§6): the call's ids, how it ended and how long it took, never args
 * or result; and its metrics (§14). `router` is the executor that ran it, `undefined` for a delivery
 * refused before one took it (counted under the environment's owner, without a tool).
 */
export function logOutcome(
  outcome: Outcome,
  delivery: Pick<Delivery, 'source' | 'messageId'> & Partial<Pick<Delivery, 'allowed'>>,
  started: number,
  router?: MetricsSource,
): void {
  const { identity } = outcome;
  const durationMs = Date.now() - started;
  logCall(
    {
      tool: identity.tool ?? null,
      run_id: identity.runId ?? null,
      call_id: identity.callId ?? null,
      approval_id: identity.approvalId ?? null,
      message_id: delivery.messageId ?? null,
      source: delivery.source,
      ...(outcome.ok
        ? { status: outcome.reply.status }
        : { error: { type: outcome.error.name, message: outcome.error.message, retryable: outcome.error.retryable } }),
      duration_ms: durationMs,
    },
    callMetrics(router, {
      tool: identity.tool,
      allowed: delivery.allowed,
      failed: !outcome.ok,
      durationMs,
      requested: outcome.ok && outcome.reply.status === 'pending_approval',
      duplicate: outcome.ok && outcome.kept === true,
    }),
  );
}

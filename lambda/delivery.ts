/**
 * One envelope on the run path: what goes down with it (`Delivery`), what comes back up (`Outcome`),
 * and how the call ended (`CallEnded`, what every sink writes). The event adapters, the executor and
 * the call protocols all speak these, so that no step imports another step of the chain for them.
 */
import type { Caller } from './caller';
import type { ClaimInput } from './stores/types';
import type { Deadline } from './deadline';
import type { Envelope } from './envelope';
import type { ReplyTo } from './flows/reply-to';
import type { ToolHandlerError } from './errors';
import type { MetricsSource } from './metrics/calls';
import type { CallIdentity, Reply } from './reply';
import type { ResultOffload } from './result-offload';
import type { Trace } from './trace';

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
  /** The trace its host carried (an SQS record's, a Gateway call's); the envelope's own `trace` wins. @default - none */
  readonly trace?: Trace;
  readonly deadline: Deadline;
  /** The most a result may take on this delivery's way back, UTF-8 bytes of JSON. @default RESULT_LIMITS.sync */
  readonly resultLimit?: number;
  /** Where results above its threshold go instead of the reply. @default - none: a result over the limit fails */
  readonly results?: ResultOffload;
  /** The executor's owner: the prefix of offloaded results. @default - none */
  readonly owner?: string;
  /** When the delivery's source delivers it again should it fail. @default - never: leases end with the invocation */
  readonly redelivery?: Redelivery;
  /**
   * Which approvals a resume in this delivery may claim, for a host that may resume only what its own
   * calls asked for (the Gateway: `run_id`s of its own, and the same caller); any other answers as
   * missing, and is never claimed. @default - any approval of the handler's owner
   */
  readonly resumeLimits?: Pick<ClaimInput, 'runIdPrefix' | 'requestedBy'>;
  /**
   * The source will not deliver it again should it fail (an SQS record received `maxReceiveCount`
   * times): a flow waiting for the call is told of a retryable failure now. @default false
   */
  readonly finalAttempt?: boolean;
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

/** A call as the executor hands it to a protocol: its ids, its fingerprint, and whom it acts for. */
export type PlainCall = Required<Pick<CallIdentity, 'tool' | 'runId' | 'callId' | 'fingerprint'>> & Pick<CallIdentity, 'caller' | 'trace' | 'flow'>;

/** How one envelope ended: what every step after the executor reads, up to the host's answer. */
export type Outcome = Replied | Failed;

export interface Replied {
  readonly ok: true;
  readonly reply: Reply;
  /** The call the reply answers. */
  readonly identity: CallIdentity;
  /** The reply was kept from an earlier delivery of the call, which ran it. @default false */
  readonly kept?: boolean;
  /** A `pending_approval` reply's args: `Tool Approval Requested` events may carry them; the reply never does. */
  readonly approvalArgs?: unknown;
}

export interface Failed {
  readonly ok: false;
  readonly error: ToolHandlerError;
  /** What became known of the call before it failed, to address the error reply. */
  readonly identity: CallIdentity;
}

/**
 * How one delivered call ended, built once (call-ended.ts) and written by every sink: its log line
 * (with its metrics and audit record) and the reply bus.
 */
export interface CallEnded {
  readonly outcome: Outcome;
  /** Where the call came from (`sqs:<arn>`, `events:<source>`, `lambda`, ...). */
  readonly source: string;
  /** The delivery's id, if it had one. */
  readonly messageId: string | undefined;
  /** Whom the call acted for, as its host proved it. */
  readonly caller: Caller | undefined;
  /** Tools the delivery allowed; `undefined` allows the executor's. */
  readonly allowed: ReadonlySet<string> | undefined;
  /** The trace its host carried, for a call that failed before its own was known. */
  readonly trace: Trace | undefined;
  /** From the envelope's arrival to its outcome. */
  readonly durationMs: number;
  /** The envelope was a resume of a decided approval. */
  readonly resume?: boolean;
  /** The flow that waits for the call (a credential: never logged nor published). */
  readonly replyTo?: ReplyTo;
  /** The source will not deliver it again should it fail. */
  readonly finalAttempt?: boolean;
}

/** What a call's end is told of its delivery. */
export type EndedDelivery = Pick<Delivery, 'source' | 'messageId'> & Partial<Pick<Delivery, 'allowed' | 'caller' | 'finalAttempt' | 'trace'>>;

/** What the envelope said of where its result goes, once it was read. */
export interface EndedEnvelope {
  readonly resume?: boolean;
  readonly replyTo?: ReplyTo;
}

/**
 * What hands a parsed envelope to the protocol that answers it: the `ToolExecutor`. Its owner and
 * tool names, when it has them, are the dimensions of its calls' metrics.
 */
export interface EnvelopeRouter extends MetricsSource {
  route(envelope: Envelope, delivery: Delivery): Promise<Outcome>;
}

import type { Caller } from './caller';
import { ToolHandlerError } from './errors';
import type { ResultRef } from './result-offload';
import type { Trace } from './trace';

/** Keys every reply carries. */
interface ReplyBase {
  readonly tool: string;
  readonly run_id: string;
  readonly call_id: string;
  /** The trace id of the trace the call continued, when it had one. */
  readonly trace_id?: string;
}

export interface OkReply extends ReplyBase {
  readonly status: 'ok';
  /** The tool's return value, JSON round-tripped (`undefined` becomes `null`); absent when offloaded. */
  readonly result?: unknown;
  /** Where an offloaded result is (`resultOffload`), instead of `result`. */
  readonly result_ref?: ResultRef;
  /** Set when the tool ran on the resume of an approval. */
  readonly approval_id?: string;
}

export interface PendingApprovalReply extends ReplyBase {
  readonly status: 'pending_approval';
  readonly approval_id: string;
  /** Until when a decision may come (ISO 8601); then the approval expires. */
  readonly expires_at: string;
  /** Where a person decides it: its page in the approvals inbox, when an inbox serves the handler. */
  readonly inbox_url?: string;
}

/**
 * Another delivery has this: a resume of an approval another delivery claimed (with `approval_id`),
 * or a duplicate copy of a call whose first delivery ran it or will be delivered again by its source
 * (without `approval_id`).
 */
export interface AlreadyDoneReply extends ReplyBase {
  readonly status: 'already_done';
  /** The approval, on a resume. */
  readonly approval_id?: string;
  /** Present once the claiming run finished and its result was kept. */
  readonly result?: unknown;
  /** Where an offloaded result is, instead of `result`. */
  readonly result_ref?: ResultRef;
}

/** What a call returns. */
export type Reply = OkReply | PendingApprovalReply | AlreadyDoneReply;

/** A failure as the reply bus carries it; never returned by a handler. */
export interface ErrorReply {
  readonly status: 'error';
  readonly tool: string | null;
  readonly run_id: string | null;
  readonly call_id: string | null;
  readonly approval_id?: string;
  readonly trace_id?: string;
  readonly error: {
    readonly type: string;
    readonly message: string;
    readonly retryable: boolean;
    /** A `RateLimited` error's: seconds until a call may be counted again. */
    readonly retry_after_s?: number;
  };
}

/** What is known of a call (all of it once it replied; less when it failed early), to log it and address its replies. */
export interface CallIdentity {
  readonly tool?: string;
  readonly runId?: string;
  readonly callId?: string;
  readonly approvalId?: string;
  /** Its tool and args, hashed (`callFingerprint`): what its audit record holds instead of the args. */
  readonly fingerprint?: string;
  /** Whom it acts for: the delivery's caller, or on a resume the caller of the call that asked. */
  readonly caller?: Caller;
  /** A flow waits for the call: its `reply_to`, or on a resume its approval says so (and the resume completes it). */
  readonly flow?: boolean;
  /** The trace it continues: the envelope's or its host's, or on a resume the asking call's. */
  readonly trace?: Trace;
}

export function errorReply(error: ToolHandlerError, identity: CallIdentity): ErrorReply {
  const fields: { -readonly [K in keyof ErrorReply['error']]: ErrorReply['error'][K] } = { type: error.name, message: error.message, retryable: error.retryable };
  // A `RateLimited` error's retry time.
  const retryAfter = (error as { retry_after_s?: number }).retry_after_s;
  if (retryAfter !== undefined) fields.retry_after_s = retryAfter;
  return {
    status: 'error',
    tool: identity.tool ?? null,
    run_id: identity.runId ?? null,
    call_id: identity.callId ?? null,
    ...(identity.approvalId === undefined ? {} : { approval_id: identity.approvalId }),
    ...(identity.trace === undefined ? {} : { trace_id: identity.trace.traceId }),
    error: fields,
  };
}

/**
 * Where a call's result goes. One dispatcher (dispatch.ts) hands every end of a call, and every
 * approval the expirer marks expired, to each target the handler has; the run path never asks which
 * targets there are. A target is a place that learns of results: the reply bus, and a flow that waits
 * for its call. (The third way a result travels, a decision coming back as a resume, is AWS's own
 * machinery: the table's stream, a pipe and a rule; a decided approval reaches the handler as a
 * resume envelope, and its end is dispatched like any other.)
 */
import type { CallEnded } from '../delivery';
import type { ApprovalRecord } from '../stores/types';

/** What a target did with a result. */
export interface TargetTook {
  /** The target holds the result, or needs none: false means the delivery must be tried again. */
  readonly held: boolean;
  /** The target carried an error to whoever waits for the call, so retrying the delivery helps nobody. */
  readonly carriedError?: boolean;
}

export interface ResultTarget {
  /** A name for log lines. */
  readonly name: string;
  /** It completes the flows that calls name in `reply_to`. @default false */
  readonly takesReplyTo?: boolean;
  /** Takes the end of one delivered call. Never rejects: a failure is `held: false`, and logged. */
  callEnded(ended: CallEnded): Promise<TargetTook>;
  /** Takes an approval the expirer marked expired; resolves false when it could not be told (logged). */
  approvalExpired?(record: ApprovalRecord): Promise<boolean>;
}

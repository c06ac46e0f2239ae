/**
 * How big a result may be on its way back, and what happens to one that is bigger: the limits of
 * each way back, less room for the reply's other keys; above them a result is a `ToolFailed` that
 * says so, never a truncated reply. With an offload store (`resultOffload`), a result above its
 * threshold is written there and the reply carries `result_ref` instead (result-offload-s3.ts).
 */
import { ToolFailed } from './errors';

const MB = 1024 * 1024;
/** Kept from each limit for the reply's other keys (ids, status, trace) and the event around it. */
export const REPLY_RESERVE_BYTES = 8 * 1024;
/** The most a flow's completion may carry: Step Functions' task output and a durable callback's result. */
export const FLOW_COMPLETION_BYTES = 256 * 1024;

/** The most a result may take, in UTF-8 bytes of JSON, per way back. */
export const RESULT_LIMITS = {
  /** Lambda's synchronous response: a direct invoke, an AgentCore Gateway or Bedrock Agents call. */
  sync: 6 * MB - REPLY_RESERVE_BYTES,
  /** A reply published to a bus: an SQS or EventBridge call's (EventBridge's entry limit). */
  bus: 1 * MB - REPLY_RESERVE_BYTES,
  /** A flow's completion (`reply_to`): Step Functions' task output and a durable callback's result. */
  flow: FLOW_COMPLETION_BYTES - REPLY_RESERVE_BYTES,
} as const;

/** Where an offloaded result is, as the reply carries it instead of `result`. */
export interface ResultRef {
  /** `s3://<bucket>/<key>`. */
  readonly uri: string;
  /** Its size, UTF-8 bytes of JSON. */
  readonly bytes: number;
  /** SHA-256 of those bytes, hex. */
  readonly sha256: string;
  /** When the bucket's lifecycle deletes it (ISO 8601). */
  readonly expires_at: string;
  /** A presigned GET URL, on replies to hosts whose caller fetches it (Gateway, Bedrock Agents); never kept. */
  readonly url?: string;
}

/** Where results above a threshold go. */
export interface ResultOffload {
  /** Results above this many UTF-8 bytes of JSON are offloaded. */
  readonly threshold: number;
  /** Writes the result under the owner's prefix; its key is derived from the call's ids. */
  put(json: string, bytes: number, call: { readonly owner: string; readonly runId: string; readonly callId: string }): Promise<ResultRef>;
  /** A presigned GET URL for `ref`, valid at most 7 days and never past the signing credentials' expiry. */
  presign(ref: ResultRef): Promise<string>;
}

/** The refusal of a result too big for its way back, without an offload store: not retryable. */
export function resultTooLarge(tool: string, bytes: number, limit: number): ToolFailed {
  return new ToolFailed(
    `Tool ${tool} returned a result of ${bytes} bytes of JSON, over the ${limit} bytes this call's reply can carry: ` +
      'return less, or set `resultOffload` on the ToolHandler so that large results travel by reference.',
    // Running the tool again would give the same result, too big again.
    { retryable: false },
  );
}

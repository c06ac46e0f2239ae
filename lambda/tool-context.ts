/**
 * The one place a tool's `ctx` is made, for a plain call and for the resume of an approval alike:
 * the call it answers (its ids, and the caller it acts for) and how it was delivered (source,
 * deadline). A new field of the context is added here.
 */
import type { Caller } from './caller';
import type { Delivery } from './delivery';
import type { ToolContext } from './tool';
import type { Trace } from './trace';

/** The call a run answers: its ids, and whom it acts for (a resume: the caller of the call that asked). */
export interface ToolCall {
  readonly runId: string;
  readonly callId: string;
  /** Set when the tool runs on the resume of an approval. */
  readonly approvalId?: string;
  readonly caller?: Caller;
  /** The trace it continues. */
  readonly trace?: Trace;
  /** A flow waits for the result (`reply_to`): it must fit the flow's completion. */
  readonly flow?: boolean;
}

export function toolContext(call: ToolCall, delivery: Pick<Delivery, 'source' | 'deadline'>): ToolContext {
  // One literal of the keys every call has, the others added: no spreads on the per-call path.
  const context: { -readonly [K in keyof ToolContext]: ToolContext[K] } = {
    runId: call.runId,
    callId: call.callId,
    source: delivery.source,
    signal: delivery.deadline.signal,
    deadline: delivery.deadline.at,
  };
  if (call.approvalId !== undefined) context.approvalId = call.approvalId;
  if (call.caller !== undefined) context.caller = call.caller;
  if (call.trace !== undefined) context.trace = call.trace;
  return context;
}

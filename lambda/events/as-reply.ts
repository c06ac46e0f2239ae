/**
 * What the hosts whose caller reads a failure as a reply share (AgentCore Gateway, Bedrock Agents):
 * the call runs, its outcome goes to the reply bus like any other, and it comes back as the reply or
 * as an error reply. Nothing is thrown: these callers mask a thrown error, or fail the whole turn.
 */
import type { ToolHandlerError } from '../errors';
import type { JsonObject } from '../json';
import { errorReply, type CallIdentity, type ErrorReply, type Reply } from '../reply';
import { deliver, refuse, type DeliveryTerms } from './host';
import type { Invocation } from './invocation';
import { finishDelivery } from './finish-delivery';
import { logWarning } from '../log';

/** A call as such a host reads it: whom it names, and its envelope or why it cannot run. */
export interface ReplyCall extends CallIdentity {
  readonly envelope?: JsonObject;
  readonly refused?: ToolHandlerError;
}

/** The reply, or the error as a reply; `kept` when an earlier delivery ran the call. */
export interface Answered {
  readonly reply: Reply | ErrorReply;
  readonly kept?: boolean;
}

export async function answerAsReply(call: ReplyCall, invocation: Invocation, source: string, terms?: DeliveryTerms): Promise<Answered> {
  if (call.refused) return { reply: await refusedAsReply(call.refused, call, invocation, source) };
  const ended = await deliver(invocation, call.envelope, source, undefined, terms);
  // A reply that did not reach the bus is logged there; the caller has it all the same.
  await finishDelivery(ended, invocation.results);
  const { outcome } = ended;
  // An envelope refused as a whole (a tool name it does not accept) names no call: the host's call does.
  if (!outcome.ok) return { reply: errorReply(outcome.error, outcome.identity.runId === undefined ? call : outcome.identity) };
  return { reply: await withResultUrl(outcome.reply, invocation), kept: outcome.kept };
}

/**
 * An offloaded result's reference with a presigned GET URL: these hosts' callers fetch it. Added to
 * the answer only: kept replies hold the reference alone. A URL that cannot be signed is left out.
 */
async function withResultUrl(reply: Reply, invocation: Invocation): Promise<Reply> {
  // Folded away by the construct's bundling for a handler without `resultOffload` (OFFLOAD_BUNDLED).
  if (process.env.TOOL_HANDLER_RESULT_OFFLOAD === 'false') return reply;
  const ref = reply.status === 'pending_approval' ? undefined : reply.result_ref;
  if (ref === undefined || invocation.offload === undefined) return reply;
  try {
    return { ...reply, result_ref: { ...ref, url: await invocation.offload.presign(ref) } } as Reply;
  } catch (error) {
    logWarning('the offloaded result could not be presigned; the reply carries its reference only', { error: (error as Error).message });
    return reply;
  }
}

/** A call refused before it ran: logged and published like any error reply. */
export async function refusedAsReply(
  error: ToolHandlerError,
  call: CallIdentity,
  invocation: Invocation,
  source: string,
): Promise<ErrorReply> {
  await finishDelivery(refuse(error, call, source), invocation.results);
  return errorReply(error, call);
}

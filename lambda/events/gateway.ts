import type { Context } from 'aws-lambda';
import type { Caller } from '../caller';
import { callerPublicKey } from '../caller-keys';
import { CALLER_PROOF_HEADER, callerFromProof } from '../caller-proof';
import { ToolUsageError } from '../errors';
import { overLimits } from '../envelope';
import { sessionCallIds } from '../ids';
import { isJsonObject, type JsonObject } from '../json';
import { logWarning } from '../log';
import { RESUME_APPROVAL_TOOL } from '../construct-contract';
import type { ErrorReply, Reply } from '../reply';
import { traceOf, type Trace } from '../trace';
import { answerAsReply, refusedAsReply, type ReplyCall } from './as-reply';
import type { Host } from './host';
import type { CallerSettings } from './invocation';

/**
 * A Gateway call's answer: the reply (a kept one says `replayed`; a `pending_approval` one says in
 * `next` how to get the result), or the error as a reply: Gateway masks a thrown error as an
 * unspecified internal error, so a Gateway call never throws.
 */
export type GatewayReply = (Reply & { readonly replayed?: true; readonly next?: string }) | ErrorReply;

/** A Gateway call as read: the tool, its args, session and caller's proof, or why the event cannot be a call. */
export interface GatewayCall extends ReplyCall {
  /** The tool's own name: what follows the first `___` of `<target>___<tool>`. */
  readonly tool: string;
  /** The `<target>` of the name, `''` when it has none. */
  readonly target: string;
  /** The name as the Gateway gave it (`<target>___<tool>`): what a caller's proof is for. */
  readonly qualifiedName: string;
  readonly sessionId?: string;
  /** The event, when it is an object: the tool's args (for `resume_approval`, `{ approval_id }`). */
  readonly args?: JsonObject;
  /** The caller's proof, as the Gateway propagated it (the interceptor's header). */
  readonly proof?: string;
  /** The trace the Gateway propagated (`traceparent`, `tracestate` headers: an MCP client's `_meta`). */
  readonly trace?: Trace;
}

const SOURCE = 'agentcore';
const SEPARATOR = '___';
const ID_PREFIX = 'agc_';

/**
 * AgentCore Gateway's Lambda target: the event is the tool's args object, and the tool's name
 * (`<target>___<tool>`), the MCP session and the headers the target allowlists come in
 * `context.clientContext.custom`. The caller is the one the package's interceptor signed a proof of
 * (caller-proof.ts), checked here; anything else proves nothing. Ids derive from the target, the
 * session and the caller, and from the tool and its canonical args, so an identical call repeated
 * by one caller in one session names the same call; without a session they are fresh.
 * `resume_approval` is the resume of the approval its args name, limited to approvals that Gateway
 * calls of the same caller requested. It answers the reply, or the error as a reply, published to
 * the reply bus like any other.
 */
export const gatewayHost: Host<GatewayCall, GatewayReply> = {
  recognise: (event, context) => gatewayCallOf(event, context),
  async answer(read, invocation) {
    const caller = await callerOf(read, invocation.callers);
    const call = read.approvalId !== undefined ? read : withIds(read, caller);
    // resume_approval claims only approvals that Gateway calls of this caller requested (their run
    // ids are the Gateway's): any other is refused before it is claimed, as if it did not exist.
    const { reply, kept } = await answerAsReply(call, invocation, SOURCE, {
      caller,
      resumeLimits: { runIdPrefix: ID_PREFIX, requestedBy: caller?.id ?? null },
      trace: read.trace,
    });
    if (kept) return { ...(reply as Reply), replayed: true };
    if (reply.status !== 'pending_approval') return reply;
    const resume = call.target ? `${call.target}${SEPARATOR}${RESUME_APPROVAL_TOOL}` : RESUME_APPROVAL_TOOL;
    return { ...reply, next: `Once approved, call ${resume} with ${JSON.stringify({ approval_id: reply.approval_id })} for the result.` };
  },
  outOfTime: (call, error, invocation) => refusedAsReply(call.refused ?? error, withIds(call, undefined), invocation, SOURCE),
};

/** The Gateway call this invocation is, if `context.clientContext.custom` names a tool. */
function gatewayCallOf(event: unknown, context: Partial<Context> | undefined): GatewayCall | undefined {
  const custom = (context?.clientContext as { custom?: unknown } | undefined)?.custom;
  if (!isJsonObject(custom)) return undefined;
  const qualifiedName = nonEmptyString(custom.bedrockAgentCoreToolName) ?? nonEmptyString(custom.bedrockagentcoreToolName);
  if (qualifiedName === undefined) return undefined;
  const at = qualifiedName.indexOf(SEPARATOR);
  const target = at < 0 ? '' : qualifiedName.slice(0, at);
  const tool = at < 0 ? qualifiedName : qualifiedName.slice(at + SEPARATOR.length);
  const sessionId = nonEmptyString(custom.bedrockAgentCoreSessionId) ?? nonEmptyString(custom.bedrockagentcoreSessionId);
  const headers = propagatedHeaders(custom);
  const read = {
    tool,
    target,
    qualifiedName,
    sessionId,
    proof: nonEmptyString(headers?.get(CALLER_PROOF_HEADER)),
    trace: headers ? traceOf(headers.get('traceparent'), headers.get('tracestate'), 'agentcore') : undefined,
  };
  if (!isJsonObject(event)) {
    const got = event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event;
    return { ...read, refused: new ToolUsageError(`A Gateway call's event must be the tool's args object, got: ${got}.`) };
  }
  const args = { ...read, args: event };
  if (tool === RESUME_APPROVAL_TOOL) {
    // The args are the resume envelope itself: parsing it names a wrong type or an extra key.
    const approvalId = event.approval_id;
    if (approvalId !== undefined) return { ...args, approvalId: typeof approvalId === 'string' ? approvalId : undefined, envelope: event };
    return { ...read, refused: new ToolUsageError(`${RESUME_APPROVAL_TOOL} needs \`approval_id\`.`) };
  }
  // The args sit at level 2 of the envelope they become; bounded before anything hashes them.
  const refused = overLimits(event, 2);
  if (refused) return { ...read, refused };
  return { ...args, envelope: { tool, args: event } };
}

/**
 * The call with its ids: from the target, the session and the caller, and the tool and its args
 * (fresh without a session, or for an event refused as a whole).
 */
function withIds(call: GatewayCall, caller: Caller | undefined): GatewayCall {
  const runnable = call.envelope !== undefined && call.refused === undefined;
  const ids = sessionCallIds(ID_PREFIX, call.target, runnable ? call.sessionId : undefined, call.tool, call.args, caller?.id);
  return { ...call, ...ids, ...(runnable ? { envelope: { ...call.envelope, run_id: ids.runId, call_id: ids.callId } } : {}) };
}

/**
 * The caller the call's proof attests, when the handler knows the key that signs proofs and the
 * proof is one for this very call; otherwise none. A key that cannot be fetched is logged, and the
 * call goes on without a caller (a tool that requires one refuses it).
 */
async function callerOf(call: GatewayCall, settings: CallerSettings): Promise<Caller | undefined> {
  if (call.proof === undefined || settings.proofKey === undefined) return undefined;
  let publicKey;
  try {
    publicKey = await callerPublicKey(settings.proofKey);
  } catch (error) {
    logWarning('the key that proves Gateway callers could not be read; the call has no caller', { error: (error as Error).message });
    return undefined;
  }
  return callerFromProof(call.proof, { tool: call.qualifiedName, args: call.args ?? {}, publicKey });
}

/**
 * The headers the Gateway propagated (`bedrockAgentCorePropagatedHeaders`: an object, or its JSON as
 * a string, as a client context's values are strings), by lower-case name; `undefined` without any.
 */
function propagatedHeaders(custom: JsonObject): Map<string, unknown> | undefined {
  let headers: unknown = custom.bedrockAgentCorePropagatedHeaders ?? custom.bedrockagentcorePropagatedHeaders;
  if (headers === undefined) return undefined;
  if (typeof headers === 'string') {
    try {
      headers = JSON.parse(headers);
    } catch {
      return undefined;
    }
  }
  if (!isJsonObject(headers)) return undefined;
  return new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}


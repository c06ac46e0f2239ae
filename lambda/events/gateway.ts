import type { Context } from 'aws-lambda';
import { ToolUsageError } from '../errors';
import { overLimits } from '../envelope';
import { sessionCallIds } from '../ids';
import { isJsonObject } from '../json';
import { RESUME_APPROVAL_TOOL } from '../names';
import type { ErrorReply, Reply } from '../reply';
import { answerAsReply, refusedAsReply, type ReplyCall } from './as-reply';
import type { Host } from './host';

/**
 * A Gateway call's answer: the reply (a kept one says `replayed`; a `pending_approval` one says in
 * `next` how to get the result), or the error as a reply: Gateway masks a thrown error as an
 * unspecified internal error, so a Gateway call never throws.
 */
export type GatewayReply = (Reply & { readonly replayed?: true; readonly next?: string }) | ErrorReply;

/** A Gateway call as read: the tool, the call's ids, and its envelope or why the event cannot be one. */
export interface GatewayCall extends ReplyCall {
  /** The tool's own name: what follows the first `___` of `<target>___<tool>`. */
  readonly tool: string;
  /** The `<target>` of the name, `''` when it has none. */
  readonly target: string;
}

const SOURCE = 'agentcore';
const SEPARATOR = '___';
const ID_PREFIX = 'agc_';

/**
 * AgentCore Gateway's Lambda target (§11): the event is the tool's args object, and the tool's name
 * (`<target>___<tool>`) and the MCP session come in `context.clientContext.custom`. Ids derive from
 * the target and session and from the tool and its canonical args, so an identical call repeated in
 * one session names the same call; without a session they are fresh. `resume_approval` (§15) is the
 * resume of the approval its args name. It answers the reply, or the error as a reply, published to
 * the reply bus like any other.
 */
export const gatewayHost: Host<GatewayCall, GatewayReply> = {
  recognise: (event, context) => gatewayCallOf(event, context),
  async answer(call, invocation) {
    // resume_approval claims only approvals that Gateway calls requested (their run ids are the
    // Gateway's): any other is refused before it is claimed, as if it did not exist.
    const { reply, kept } = await answerAsReply(call, invocation, SOURCE, { resumeRunIdPrefix: ID_PREFIX });
    if (kept) return { ...(reply as Reply), replayed: true };
    if (reply.status !== 'pending_approval') return reply;
    const resume = call.target ? `${call.target}${SEPARATOR}${RESUME_APPROVAL_TOOL}` : RESUME_APPROVAL_TOOL;
    return { ...reply, next: `Once approved, call ${resume} with ${JSON.stringify({ approval_id: reply.approval_id })} for the result.` };
  },
  outOfTime: (call, error, invocation) => refusedAsReply(call.refused ?? error, call, invocation, SOURCE),
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
  if (!isJsonObject(event)) {
    const got = event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event;
    const refused = new ToolUsageError(`A Gateway call's event must be the tool's args object, got: ${got}.`);
    return { tool, target, ...sessionCallIds(ID_PREFIX, target, undefined, tool, {}), refused };
  }
  if (tool === RESUME_APPROVAL_TOOL) {
    // The args are the resume envelope itself: parsing it names a wrong type or an extra key.
    const approvalId = event.approval_id;
    if (approvalId !== undefined) return { tool, target, approvalId: typeof approvalId === 'string' ? approvalId : undefined, envelope: event };
    return { tool, target, refused: new ToolUsageError(`${RESUME_APPROVAL_TOOL} needs \`approval_id\`.`) };
  }
  // The args sit at level 2 of the envelope they become; bounded before the ids hash them.
  const refused = overLimits(event, 2);
  if (refused) return { tool, target, ...sessionCallIds(ID_PREFIX, target, undefined, tool, {}), refused };
  const sessionId = nonEmptyString(custom.bedrockAgentCoreSessionId) ?? nonEmptyString(custom.bedrockagentcoreSessionId);
  const ids = sessionCallIds(ID_PREFIX, target, sessionId, tool, event);
  return { tool, target, ...ids, envelope: { tool, args: event, run_id: ids.runId, call_id: ids.callId } };
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

import type { Context } from 'aws-lambda';
import { ToolUsageError, type ToolHandlerError } from '../errors';
import { sessionCallIds } from '../ids';
import { isJsonObject, type JsonObject } from '../json';
import { errorReply, type ErrorReply, type Reply } from '../reply';
import { deliver, refuse, type Host } from './host';
import type { Invocation } from './invocation';
import { settle } from './settle';

/**
 * A Gateway call's answer: the reply (a kept one says `replayed`), or the error as a reply: Gateway
 * masks a thrown error as an unspecified internal error, so a Gateway call never throws.
 */
export type GatewayReply = (Reply & { readonly replayed?: true }) | ErrorReply;

/** A Gateway call as read: the tool and the call's ids, and its args or why the event cannot be them. */
export interface GatewayCall {
  /** The tool's own name: what follows the first `___` of `<target>___<tool>`. */
  readonly tool: string;
  readonly runId: string;
  readonly callId: string;
  readonly args?: JsonObject;
  readonly refused?: ToolUsageError;
}

const SOURCE = 'agentcore';
const SEPARATOR = '___';
const ID_PREFIX = 'agc_';

/**
 * AgentCore Gateway's Lambda target (§11): the event is the tool's args object, and the tool's name
 * (`<target>___<tool>`) and the MCP session come in `context.clientContext.custom`. Ids derive from
 * the target and session and from the tool and its canonical args, so an identical call repeated in
 * one session names the same call; without a session they are fresh. It answers the reply, or the
 * error as a reply, published to the reply bus like any other.
 */
export const gatewayHost: Host<GatewayCall, GatewayReply> = {
  recognise: (event, context) => gatewayCallOf(event, context),
  async answer(call, invocation) {
    if (call.refused) return refused(call.refused, call, invocation);
    const outcome = await deliver(invocation, { tool: call.tool, args: call.args, run_id: call.runId, call_id: call.callId }, SOURCE, undefined);
    // A reply that did not reach the bus is logged there; Gateway's caller has it all the same.
    await settle(outcome, invocation.replies);
    // An envelope refused as a whole (a tool name it does not accept) names no call: the Gateway's does.
    if (!outcome.ok) return errorReply(outcome.error, outcome.identity.runId === undefined ? call : outcome.identity);
    return outcome.kept ? { ...outcome.reply, replayed: true } : outcome.reply;
  },
  outOfTime: (call, error, invocation) => refused(call.refused ?? error, call, invocation),
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
    return { tool, ...sessionCallIds(ID_PREFIX, target, undefined, tool, {}), refused };
  }
  const sessionId = nonEmptyString(custom.bedrockAgentCoreSessionId) ?? nonEmptyString(custom.bedrockagentcoreSessionId);
  return { tool, ...sessionCallIds(ID_PREFIX, target, sessionId, tool, event), args: event };
}

/** A call refused before it ran: logged and published like any error reply. */
async function refused(error: ToolHandlerError, call: GatewayCall, invocation: Invocation): Promise<ErrorReply> {
  await settle(refuse(error, call, SOURCE), invocation.replies);
  return errorReply(error, call);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { ToolTimeout, ToolUsageError, type ToolHandlerError } from '../errors';
import type { EnvelopeOutcome } from '../handle-envelope';
import { canonicalJson, isJsonObject, type JsonObject } from '../json';
import { logCall } from '../log';
import { errorReply, isKeptReply, type ErrorReply, type Reply } from '../reply';
import { runEnvelope, type Invocation } from './invocation';
import { settle } from './settle';

/** What AgentCore Gateway puts in the client context of a Lambda target's invocation. */
export interface GatewayCall {
  /** `<target>___<tool>` as Gateway sent it. */
  readonly qualifiedName: string;
  /** The `<target>` prefix; empty when the name has no `___`. */
  readonly target: string;
  /** The tool's own name: what follows the first `___`. */
  readonly tool: string;
  /** The MCP session, when Gateway gave one. */
  readonly sessionId?: string;
}

/**
 * A Gateway call's answer: the reply (a kept one says `replayed`), or the error as a reply: Gateway
 * masks a thrown error as an unspecified internal error, so a Gateway call never throws.
 */
export type GatewayReply = (Reply & { readonly replayed?: true }) | ErrorReply;

export const GATEWAY_SOURCE = 'agentcore';
const SEPARATOR = '___';

/** The Gateway call this invocation is, if `context.clientContext.custom` names a tool. */
export function gatewayCallOf(context: Partial<Context> | undefined): GatewayCall | undefined {
  const custom = (context?.clientContext as { custom?: unknown } | undefined)?.custom;
  if (!isJsonObject(custom)) return undefined;
  const qualifiedName = nonEmptyString(custom.bedrockAgentCoreToolName) ?? nonEmptyString(custom.bedrockagentcoreToolName);
  if (qualifiedName === undefined) return undefined;
  const at = qualifiedName.indexOf(SEPARATOR);
  const sessionId = nonEmptyString(custom.bedrockAgentCoreSessionId) ?? nonEmptyString(custom.bedrockagentcoreSessionId);
  return {
    qualifiedName,
    target: at < 0 ? '' : qualifiedName.slice(0, at),
    tool: at < 0 ? qualifiedName : qualifiedName.slice(at + SEPARATOR.length),
    ...(sessionId === undefined ? {} : { sessionId }),
  };
}

/**
 * The ids of a Gateway call: `run_id` from the target and session, `call_id` from the
 * tool and its canonical args, so an identical call repeated in one session names the same call.
 * Without a session the ids are fresh.
 */
export function gatewayCallIds(call: GatewayCall, args: JsonObject): { runId: string; callId: string } {
  if (call.sessionId === undefined) return { runId: `agc_${randomUUID()}`, callId: `agc_${randomUUID()}` };
  return {
    runId: `agc_${sha256(canonicalJson([call.target, call.sessionId]))}`,
    callId: `agc_${sha256(canonicalJson([call.tool, args]))}`,
  };
}

/** Runs one Gateway call: the event is the tool's args. Publishes to the reply bus; never throws. */
export async function handleGatewayCall(event: unknown, call: GatewayCall, invocation: Invocation): Promise<GatewayReply> {
  if (!isJsonObject(event)) {
    const got = event === null ? 'null' : Array.isArray(event) ? 'an array' : typeof event;
    const error = new ToolUsageError(`A Gateway call's event must be the tool's args object, got: ${got}.`);
    return failed(error, { tool: call.tool, ...gatewayCallIds({ ...call, sessionId: undefined }, {}) }, invocation);
  }
  const ids = gatewayCallIds(call, event);
  if (invocation.budgetMs <= 0) {
    const error = new ToolTimeout(`No time left to run the call: the deadline budget is ${invocation.budgetMs} ms.`);
    return failed(error, { tool: call.tool, ...ids }, invocation);
  }
  const outcome = await runEnvelope(
    invocation,
    { tool: call.tool, args: event, run_id: ids.runId, call_id: ids.callId },
    { source: GATEWAY_SOURCE },
  );
  // A reply that did not reach the bus is logged there; Gateway's caller has it all the same.
  await settle(outcome, invocation.replies);
  if (!outcome.ok) return errorReply(outcome.error, { tool: call.tool, ...ids, ...outcome.identity });
  return isKeptReply(outcome.reply) ? { ...outcome.reply, replayed: true } : outcome.reply;
}

/** An error found before the envelope ran: logged and published like any error reply. */
async function failed(
  error: ToolHandlerError,
  identity: { tool: string; runId: string; callId: string },
  invocation: Invocation,
): Promise<ErrorReply> {
  logCall({
    tool: identity.tool,
    run_id: identity.runId,
    call_id: identity.callId,
    approval_id: null,
    message_id: null,
    source: GATEWAY_SOURCE,
    error: { type: error.name, message: error.message, retryable: error.retryable },
    duration_ms: 0,
  });
  const outcome: EnvelopeOutcome = { ok: false, error, identity };
  await settle(outcome, invocation.replies);
  return errorReply(error, identity);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

import type { Caller } from '../caller';
import { overLimits } from '../envelope';
import { ToolUsageError } from '../errors';
import { sessionCallIds } from '../ids';
import { isJsonObject, type JsonObject } from '../json';
import type { ErrorReply, Reply } from '../reply';
import { answerAsReply, refusedAsReply } from './as-reply';
import type { Host } from './host';
import type { Invocation } from './invocation';

/** What an Amazon Bedrock agent's action group expects back from its Lambda function (function details). */
export interface BedrockAgentResponse {
  readonly messageVersion: '1.0';
  readonly response: {
    readonly actionGroup: string;
    readonly function: string;
    readonly functionResponse: {
      /** `REPROMPT` when the model can fix the call (a `ToolUsageError`). */
      readonly responseState?: 'REPROMPT';
      /** The reply's JSON, or the error reply's. */
      readonly responseBody: { readonly TEXT: { readonly body: string } };
    };
  };
  readonly sessionAttributes?: unknown;
  readonly promptSessionAttributes?: unknown;
}

/** A Bedrock Agents event as read (only `parameters` is read later, against the tool's schema). */
export interface BedrockCall {
  readonly event: JsonObject;
  readonly tool: string;
  readonly actionGroup: string;
  /** Why the event is over the envelope's limits, found before anything walks it; it is then answered with that alone. */
  readonly refused?: ToolUsageError;
}

const SOURCE = 'bedrock-agent';
const ID_PREFIX = 'bra_';

/**
 * Amazon Bedrock Agents, an action group defined by function details: the tool is `function`;
 * the args are built from `parameters` (`{ name, type, value }`, values as strings) by their declared
 * types and then checked by the tool's schema; the ids derive from the agent and session and from
 * the tool and its canonical args (as the Gateway's). It answers in Bedrock's response format with the reply's
 * JSON, or the error reply's, as the TEXT body, `REPROMPT` for a `ToolUsageError`; it never throws.
 */
export const bedrockAgentHost: Host<BedrockCall, BedrockAgentResponse> = {
  recognise(event) {
    if (!isJsonObject(event) || !('messageVersion' in event && 'agent' in event && 'actionGroup' in event && 'function' in event)) {
      return undefined;
    }
    return { event, tool: text(event.function), actionGroup: text(event.actionGroup), refused: overLimits(event) };
  },
  async answer(call, invocation) {
    const { event, tool } = call;
    const agent = isJsonObject(event.agent) ? event.agent : {};
    let args: JsonObject;
    try {
      if (call.refused) throw call.refused;
      // The parameters' strings were measured unparsed; the args they become are bounded (level 2 of
      // their envelope) before the ids hash them.
      args = argsOf(event.parameters, invocation, tool);
      const refused = overLimits(args, 2);
      if (refused) throw refused;
    } catch (error) {
      return respond(call, await refusedAsReply(error as ToolUsageError, { tool }, invocation, SOURCE));
    }
    const session = text(event.sessionId) || undefined;
    const caller = endUserOf(event, invocation.callers.bedrockAttribute);
    const ids = sessionCallIds(ID_PREFIX, text(agent.id), session, tool, args, caller?.id);
    const envelope = { tool, args, run_id: ids.runId, call_id: ids.callId };
    return respond(call, (await answerAsReply({ tool, ...ids, envelope }, invocation, SOURCE, { caller })).reply);
  },
  outOfTime: async (call, error, invocation) => respond(call, await refusedAsReply(error, { tool: call.tool }, invocation, SOURCE)),
};

function respond({ event, tool, actionGroup, refused }: BedrockCall, reply: Reply | ErrorReply): BedrockAgentResponse {
  const reprompt = reply.status === 'error' && reply.error.type === 'ToolUsageError';
  return {
    messageVersion: '1.0',
    response: {
      actionGroup,
      function: tool,
      functionResponse: { ...(reprompt ? { responseState: 'REPROMPT' } : {}), responseBody: { TEXT: { body: JSON.stringify(reply) } } },
    },
    // Passed back unchanged, unless the event was too large or deep to pass back.
    ...(refused ? {} : { sessionAttributes: event.sessionAttributes, promptSessionAttributes: event.promptSessionAttributes }),
  };
}

/**
 * The args from the parameters, each by its declared type. A `string` parameter whose value the
 * tool's schema does not accept as a string, but which is JSON, is taken as that JSON: that is how
 * an object-typed arg travels (`bedrockFunctionSchema` declares it as a JSON-string parameter).
 */
function argsOf(parameters: unknown, invocation: Invocation, tool: string): JsonObject {
  const shape = (invocation.executor.toolList.find((t) => t.name === tool)?.input as { shape?: Record<string, unknown> } | undefined)?.shape;
  const entries = ([] as unknown[]).concat(parameters ?? []).map((parameter, i): [string, unknown] => {
    const { name, type, value } = isJsonObject(parameter) ? parameter : ({} as JsonObject);
    if (typeof name !== 'string' || typeof value !== 'string') {
      throw new ToolUsageError(`Invalid Bedrock Agents event: \`parameters[${i}]\` needs a string name and value.`);
    }
    let arg: unknown = value;
    if (type === 'number' || type === 'integer') arg = value.trim() && Number(value);
    else if (type === 'boolean') arg = /^(true|false)$/i.test(value) ? /^t/i.test(value) : undefined;
    else if (type === 'array') arg = parseJson(value);
    else if (rejects(shape?.[name], value)) arg = parseJson(value) ?? value;
    const fits = type === 'boolean' ? arg !== undefined : type === 'array' ? Array.isArray(arg) : type === 'integer' ? Number.isInteger(arg) : type !== 'number' || Number.isFinite(arg);
    if (!fits) throw new ToolUsageError(`Parameter \`${name}\` is not a valid ${type}${type === 'array' ? ' (a JSON array)' : ''}.`);
    return [name, arg];
  });
  // `Object.fromEntries` defines each key as an own property: a parameter named `__proto__` stays data.
  return Object.fromEntries(entries);
}

/** Whether `schema` (a Standard Schema: zod's) refuses `value`; `false` when unknown or not synchronous. */
function rejects(schema: unknown, value: string): boolean {
  const validate = (schema as { '~standard'?: { validate?: (value: unknown) => unknown } } | undefined)?.['~standard']?.validate;
  try {
    return typeof validate === 'function' && Array.isArray((validate(value) as { issues?: unknown } | undefined)?.issues);
  } catch {
    return false;
  }
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * The end user the application named in the session attribute `attribute` (set by whoever calls
 * `InvokeAgent`, so never verified: Bedrock passes it on as it was given).
 */
function endUserOf(event: JsonObject, attribute: string | undefined): Caller | undefined {
  if (attribute === undefined || !isJsonObject(event.sessionAttributes)) return undefined;
  const id = event.sessionAttributes[attribute];
  return typeof id === 'string' && id.length > 0 ? { id, kind: 'user', source: SOURCE, verified: false } : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

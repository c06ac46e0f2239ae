import * as z from 'zod';
import { ToolUsageError } from './errors';
import { deriveCallIds } from './ids';
import { codePointLength, isJsonObject, jsonErrorPosition, JsonObject, nestsDeeperThan } from './json';
import { TOOL_NAME_PATTERN } from './construct-contract';
import { readReplyTo, replyToPayload, type ReplyTo } from './flows/reply-to';
import { envelopeTrace, type Trace } from './trace';

/** The largest envelope accepted, in bytes of UTF-8 JSON. */
export const MAX_ENVELOPE_BYTES = 1 << 20;
/** The deepest nesting accepted: the envelope object is level 1, `args` level 2. */
export const MAX_ENVELOPE_DEPTH = 64;

const MAX_TOOL_NAME = 128;
const MAX_ID = 256;
const ID_FORBIDDEN = /[\s\p{Cc}]/u;

/** A call of a tool, with its ids filled in. */
export interface CallEnvelope {
  readonly isResume: false;
  readonly tool: string;
  readonly args: JsonObject;
  readonly runId: string;
  readonly callId: string;
  readonly approvalId?: undefined;
  /** The flow that waits for the result (a credential: docs/flows.md). @default - none */
  readonly replyTo?: ReplyTo;
  /** The trace it continues (`trace` of the envelope), if it names a well-formed one. */
  readonly trace?: Trace;
}

/** A resume of a decided approval. */
export interface ResumeEnvelope {
  readonly isResume: true;
  readonly approvalId: string;
  readonly tool?: undefined;
  readonly args?: undefined;
  readonly runId?: undefined;
  readonly callId?: undefined;
  readonly trace?: undefined;
}

export type Envelope = CallEnvelope | ResumeEnvelope;

export interface ParseEnvelopeOptions {
  /** The delivery's id (SQS messageId, EventBridge event id, Lambda request id). */
  readonly messageId?: string;
  /** Where the envelope came from, e.g. `sqs:<queue arn>`. @default 'direct' */
  readonly source?: string;
}

function idString(key: string) {
  return z.string().superRefine((value, ctx) => {
    const problem =
      value.length === 0
        ? 'must not be empty'
        : codePointLength(value) > MAX_ID
          ? `must be at most ${MAX_ID} characters, got ${codePointLength(value)}`
          : ID_FORBIDDEN.test(value)
            ? 'must not contain whitespace or control characters'
            : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: `\`${key}\` ${problem}` });
  });
}

const toolName = z.string().superRefine((value, ctx) => {
  if (TOOL_NAME_PATTERN.test(value)) return;
  const problem =
    value.length === 0
      ? 'must not be empty'
      : codePointLength(value) > MAX_TOOL_NAME
        ? `must be at most ${MAX_TOOL_NAME} characters, got ${codePointLength(value)}`
        : 'may hold only A-Z a-z 0-9 _ . -';
  ctx.addIssue({ code: 'custom', message: `\`tool\` ${problem}` });
});

export const callSchema = z.strictObject({
  tool: toolName,
  args: z.custom<JsonObject>(isJsonObject, { error: '`args` must be a JSON object' }).optional(),
  run_id: idString('run_id').optional(),
  call_id: idString('call_id').optional(),
  // Read by hand (readReplyTo): its messages never quote the token, and zod's unions cost the bundle.
  reply_to: z.unknown().optional(),
  // Read leniently (envelopeTrace): a malformed trace is ignored, never an error.
  trace: z.unknown().optional(),
});

const resumeSchema = z.strictObject({ approval_id: idString('approval_id') });

const DECISION_KEYS = new Set(['approved', 'approve', 'decision', 'decided_by', 'denied', 'reason', 'status']);

/**
 * Reads one envelope from a JSON string (an SQS body) or an already-parsed object (an EventBridge
 * `detail`, a direct invoke). Throws `ToolUsageError` naming what was wrong.
 */
export function parseEnvelope(payload: unknown, options: ParseEnvelopeOptions = {}): Envelope {
  const object = toObject(payload);
  const hasTool = object.tool !== undefined;
  const hasApproval = object.approval_id !== undefined;
  if (hasTool === hasApproval) {
    throw new ToolUsageError(
      hasTool
        ? 'Invalid envelope: has both `tool` and `approval_id`; send a call (`tool`) or a resume (`approval_id`), not both.'
        : `Invalid envelope: needs \`tool\` (a call) or \`approval_id\` (a resume of a decided approval); got ${keysOf(object)}.`,
    );
  }
  if (hasApproval) {
    const resume = validate(resumeSchema, object, 'a resume');
    return { isResume: true, approvalId: resume.approval_id };
  }
  // The common envelope is checked by hand, as callSchema would; any other goes through the schema,
  // which words the refusal.
  const call = isPlainCall(object) ? (object as z.infer<typeof callSchema>) : validate(callSchema, object, 'a call');
  const replyTo = call.reply_to === undefined ? undefined : readReplyTo(call.reply_to);
  if (typeof replyTo === 'string') throw new ToolUsageError(`Invalid envelope: ${replyTo}.`);
  const derived =
    call.run_id === undefined || call.call_id === undefined
      ? deriveCallIds(options.source ?? 'direct', options.messageId)
      : undefined;
  return {
    isResume: false,
    tool: call.tool,
    args: call.args ?? {},
    runId: call.run_id ?? derived!.runId,
    callId: call.call_id ?? derived!.callId,
    // Every key always present (one shape for every call): no spread on the per-call path.
    replyTo,
    trace: envelopeTrace(call.trace),
  };
}

/** What callSchema accepts, when it has no other keys and its ids and args are all well formed (or absent). */
export function isPlainCall(object: JsonObject): boolean {
  for (const key in object) if (!Object.hasOwn(callSchema.shape, key)) return false;
  const { tool, args, run_id: runId, call_id: callId } = object;
  return typeof tool === 'string' && TOOL_NAME_PATTERN.test(tool) && (args === undefined || isJsonObject(args)) && isIdOrAbsent(runId) && isIdOrAbsent(callId);
}

function isIdOrAbsent(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && value.length > 0 && value.length <= MAX_ID && !ID_FORBIDDEN.test(value));
}

/** The envelope as it travels, which `parseEnvelope` reads back into the same envelope. */
export function envelopePayload(envelope: Envelope): JsonObject {
  if (envelope.isResume) return { approval_id: envelope.approvalId };
  const payload: JsonObject = { tool: envelope.tool, args: envelope.args, run_id: envelope.runId, call_id: envelope.callId };
  if (envelope.replyTo) payload.reply_to = replyToPayload(envelope.replyTo);
  if (envelope.trace) payload.trace = { traceparent: envelope.trace.traceparent, ...(envelope.trace.tracestate ? { tracestate: envelope.trace.tracestate } : {}) };
  return payload;
}

/**
 * Why `input` is over the envelope's limits, or `undefined`: every host asks this before it hashes,
 * coerces or recurses into what arrived, so a hostile input is a typed refusal and never a stack
 * overflow. A string is measured in UTF-8 bytes before it is parsed; an object or array that sits at
 * `level` of its envelope (1: the envelope itself, 2: its `args`) is first walked for depth,
 * iteratively, and then measured.
 */
export function overLimits(input: unknown, level = 1): ToolUsageError | undefined {
  if (typeof input === 'string') return oversized(input);
  if (typeof input !== 'object' || input === null) return undefined;
  // Depth first: a cycle or a hostile depth must not reach JSON.stringify.
  const deep = tooDeep(input, level);
  if (deep) return deep;
  try {
    return oversized(JSON.stringify(input) ?? '');
  } catch (error) {
    return new ToolUsageError(`Invalid envelope: not JSON (${(error as Error).message}).`, { cause: error });
  }
}

function toObject(payload: unknown): JsonObject {
  const refused = overLimits(payload);
  if (refused) throw refused;
  let value = payload;
  if (typeof payload === 'string') {
    try {
      value = JSON.parse(payload);
    } catch {
      // V8's message (and so a cause) quotes the body, which may hold a secret: the position only.
      throw new ToolUsageError(`Invalid envelope: not JSON (the payload is not valid JSON at position ${jsonErrorPosition(payload)}).`);
    }
  } else if (isJsonObject(payload)) {
    value = withoutUndefined(payload);
  }
  if (!isJsonObject(value)) {
    throw new ToolUsageError(`Invalid envelope: must be a JSON object, got ${describeType(value)}.`);
  }
  if (typeof payload === 'string') {
    const deep = tooDeep(value, 1);
    if (deep) throw deep;
  }
  return value;
}

function tooDeep(value: object, level: number): ToolUsageError | undefined {
  if (!nestsDeeperThan(value, MAX_ENVELOPE_DEPTH - level + 1)) return undefined;
  return new ToolUsageError(
    `Invalid envelope: nested deeper than ${MAX_ENVELOPE_DEPTH} levels (the envelope is level 1, \`args\` level 2, and every object or array in them adds one).`,
  );
}

function oversized(text: string): ToolUsageError | undefined {
  // A UTF-16 unit takes at most 3 UTF-8 bytes: short strings need no exact count.
  if (text.length * 3 <= MAX_ENVELOPE_BYTES) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_ENVELOPE_BYTES) return undefined;
  return new ToolUsageError(`Invalid envelope: ${bytes} bytes is over the limit of ${MAX_ENVELOPE_BYTES} bytes of UTF-8 JSON.`);
}

/** In an already-parsed payload a key whose value is `undefined` counts as absent. */
function withoutUndefined(object: JsonObject): JsonObject {
  const keys = Object.keys(object);
  if (keys.every((key) => object[key] !== undefined)) return object;
  const copy: JsonObject = {};
  for (const key of keys) {
    if (object[key] !== undefined) {
      Object.defineProperty(copy, key, { value: object[key], enumerable: true, writable: true, configurable: true });
    }
  }
  return copy;
}

function validate<T>(schema: z.ZodType<T>, object: JsonObject, kind: string): T {
  const parsed = schema.safeParse(object);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ToolUsageError(`Invalid envelope: ${describeIssue(issue, object, kind)}`);
}

function describeIssue(issue: z.core.$ZodIssue, object: JsonObject, kind: string): string {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    if (DECISION_KEYS.has(key)) {
      return `unknown key \`${key}\`: a decision never travels in an envelope; approvers decide through the approvals API (or the approval store).`;
    }
    const allowed = kind === 'a resume' ? '`approval_id` only' : '`tool`, `args`, `run_id`, `call_id`, `reply_to`, `trace`';
    return `key \`${key}\` is not allowed in ${kind} (allowed: ${allowed}).`;
  }
  if (issue.code === 'custom') return `${issue.message}.`;
  const key = issue.path.map(String).join('.');
  if (issue.code === 'invalid_type') return `\`${key}\` must be a ${issue.expected}, got ${describeType(object[key])}.`;
  return `\`${key}\` ${issue.message}.`;
}

/** What an object that is no envelope holds: its first top-level keys, never values. */
function keysOf(object: JsonObject): string {
  const keys = Object.keys(object).slice(0, 8).map((key) => JSON.stringify(key.slice(0, 40)));
  return keys.length > 0 ? `the keys ${keys}` : 'an empty object';
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

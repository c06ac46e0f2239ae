/**
 * `reply_to`: the flow that waits for a call's result (docs/flows.md). A Step Functions task token or
 * a durable function's callback id is a bearer credential: whoever holds it can complete the flow.
 * It is read here, kept by the flow store, and handed to the completion only: no error message names
 * it, and no log line, reply, event or record carries it.
 */

/** The longest task token Step Functions issues, and the longest durable callback id, in characters. */
export const MAX_TASK_TOKEN = 2048;
export const MAX_CALLBACK_ID = 1024;

/** A Step Functions task waiting with `.waitForTaskToken`. */
export interface SfnReplyTo {
  readonly kind: 'sfn';
  readonly taskToken: string;
}

/** A Lambda durable function waiting on `waitForCallback`. */
export interface DurableReplyTo {
  readonly kind: 'durable';
  readonly callbackId: string;
}

export type ReplyTo = SfnReplyTo | DurableReplyTo;

const CONTROL = /[\p{Cc}\s]/u;

/** Why a secret string is refused, or `undefined`; the value is never quoted (it is a credential). */
function secretProblem(key: string, value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return `\`reply_to.${key}\` must be a string`;
  if (value.length === 0) return `\`reply_to.${key}\` must not be empty`;
  if (value.length > max) return `\`reply_to.${key}\` must be at most ${max} characters`;
  if (CONTROL.test(value)) return `\`reply_to.${key}\` must not contain whitespace or control characters`;
  return undefined;
}

const KIND_PROBLEM = '`reply_to.kind` must be "sfn" (with `task_token`) or "durable" (with `callback_id`)';

/**
 * Reads the wire form (snake_case), as the envelope carries it: the reply_to, or why it is refused
 * (a message naming the key, never the value).
 */
export function readReplyTo(wire: unknown): ReplyTo | string {
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) return '`reply_to` must be an object';
  const fields = wire as Record<string, unknown>;
  const secretKey = fields.kind === 'sfn' ? 'task_token' : fields.kind === 'durable' ? 'callback_id' : undefined;
  if (secretKey === undefined) return KIND_PROBLEM;
  const extra = Object.keys(fields).find((key) => key !== 'kind' && key !== secretKey);
  if (extra !== undefined) return `key \`reply_to.${extra.slice(0, 40)}\` is not allowed (\`reply_to\` holds \`kind\` and \`${secretKey}\`)`;
  const problem = secretProblem(secretKey, fields[secretKey], secretKey === 'task_token' ? MAX_TASK_TOKEN : MAX_CALLBACK_ID);
  if (problem) return problem;
  const secret = fields[secretKey] as string;
  return fields.kind === 'sfn' ? { kind: 'sfn', taskToken: secret } : { kind: 'durable', callbackId: secret };
}

/** Back to the wire form. */
export function replyToPayload(replyTo: ReplyTo): { kind: string; task_token?: string; callback_id?: string } {
  return replyTo.kind === 'sfn' ? { kind: 'sfn', task_token: replyTo.taskToken } : { kind: 'durable', callback_id: replyTo.callbackId };
}

/** Whether `value` is a kept reply_to (as the flow store reads it back). */
export function isReplyTo(value: unknown): value is ReplyTo {
  const v = value as { kind?: unknown; taskToken?: unknown; callbackId?: unknown } | undefined;
  return (v?.kind === 'sfn' && typeof v.taskToken === 'string') || (v?.kind === 'durable' && typeof v.callbackId === 'string');
}

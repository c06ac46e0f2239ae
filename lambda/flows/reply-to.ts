/**
 * `reply_to`: the flow that waits for a call's result (docs/flows.md). A Step Functions task token or
 * a durable function's callback id is a bearer credential: whoever holds it can complete the flow.
 * It is read here, kept by the flow store, and handed to the completion only: no error message names
 * it, and no log line, reply, event or record carries it.
 */
import * as z from 'zod';

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

function secretString(key: string, max: number) {
  return z.string().superRefine((value, ctx) => {
    const problem =
      value.length === 0
        ? 'must not be empty'
        : value.length > max
          ? `must be at most ${max} characters`
          : CONTROL.test(value)
            ? 'must not contain whitespace or control characters'
            : undefined;
    // The value is never quoted: it is a credential.
    if (problem) ctx.addIssue({ code: 'custom', message: `\`reply_to.${key}\` ${problem}` });
  });
}

/** The wire form (snake_case), as the envelope carries it. */
export const replyToSchema = z
  .discriminatedUnion(
    'kind',
    [
      z.strictObject({ kind: z.literal('sfn'), task_token: secretString('task_token', MAX_TASK_TOKEN) }),
      z.strictObject({ kind: z.literal('durable'), callback_id: secretString('callback_id', MAX_CALLBACK_ID) }),
    ],
    { error: '`reply_to.kind` must be "sfn" (with `task_token`) or "durable" (with `callback_id`)' },
  )
  .transform((wire): ReplyTo => (wire.kind === 'sfn' ? { kind: 'sfn', taskToken: wire.task_token } : { kind: 'durable', callbackId: wire.callback_id }));

/** Back to the wire form. */
export function replyToPayload(replyTo: ReplyTo): { kind: string; task_token?: string; callback_id?: string } {
  return replyTo.kind === 'sfn' ? { kind: 'sfn', task_token: replyTo.taskToken } : { kind: 'durable', callback_id: replyTo.callbackId };
}

/** Whether `value` is a kept reply_to (as the flow store reads it back). */
export function isReplyTo(value: unknown): value is ReplyTo {
  const v = value as { kind?: unknown; taskToken?: unknown; callbackId?: unknown } | undefined;
  return (v?.kind === 'sfn' && typeof v.taskToken === 'string') || (v?.kind === 'durable' && typeof v.callbackId === 'string');
}

/**
 * What the reply bus publishes of a call's end: its reply, or its error as an error reply (docs:
 * "Reply bus"), and what the outcome holds for the bus besides (a pending approval's args).
 */
import type { CallEnded } from '../delivery';
import { errorReply, type ErrorReply, type Reply } from '../reply';
import type { ReplyExtras } from '../reply-bus';

export function replyEvent({ outcome }: CallEnded): { readonly reply: Reply | ErrorReply; readonly extras?: ReplyExtras } {
  if (!outcome.ok) return { reply: errorReply(outcome.error, outcome.identity) };
  return { reply: outcome.reply, extras: { approvalArgs: outcome.approvalArgs, caller: outcome.identity.caller } };
}

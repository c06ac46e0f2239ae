/**
 * The host contract (a host is one file): every kind of event that invokes the handler is an
 * adapter that recognises its events and answers them as its caller expects. `toolHandler` walks the
 * ordered list of them (hosts.ts), checks the invocation's budget once for all, and gives the event
 * to the first that recognises it. An adapter runs each delivery with `deliver` and refuses one it
 * cannot read with `refuse`, so that every call, run or refused, ends the same way (`CallEnded`).
 */
import type { Context } from 'aws-lambda';
import { endCall } from '../call-ended';
import type { CallEnded, Delivery } from '../delivery';
import type { ToolHandlerError, ToolTimeout } from '../errors';
import { runEnvelope } from '../handle-envelope';
import type { CallIdentity } from '../reply';
import type { Invocation } from './invocation';

export interface Host<Reading, Answer> {
  /**
   * The host's reading of the event, or `undefined` when the event is not of its kind. Throws a
   * `ToolUsageError` for an event of its kind that cannot be answered at all.
   */
  recognise(event: unknown, context: Partial<Context> | undefined): Reading | undefined;
  /** Runs the event's calls in the invocation and answers as the host's caller expects. */
  answer(reading: Reading, invocation: Invocation): Promise<Answer>;
  /** Answers without running anything: the invocation has no time left, as `error` says. */
  outOfTime(reading: Reading, error: ToolTimeout, invocation: Invocation): Promise<Answer>;
}

/** What a host answers. */
export type AnswerOf<H> = H extends Host<any, infer Answer> ? Answer : never;

/** What a host says of a delivery besides its payload, source and id. */
export type DeliveryTerms = Pick<Delivery, 'redelivery' | 'resumeLimits' | 'caller' | 'finalAttempt' | 'trace' | 'resultLimit'>;

/**
 * Runs one delivered payload in the invocation, under its allowlist and its deadline. The payload is
 * bounded (size, then depth) before anything reads it: `parseEnvelope` asks `overLimits` first.
 */
export function deliver(
  invocation: Invocation,
  payload: unknown,
  source: string,
  messageId: string | undefined,
  terms: DeliveryTerms = {},
): Promise<CallEnded> {
  const { executor, allowed, deadline, offload } = invocation;
  return runEnvelope(executor, payload, { allowed, source, messageId, deadline, results: offload, owner: executor.owner, ...terms });
}

/** A delivery refused before its payload runs: it ends like any call, failed with `error`. */
export function refuse(error: ToolHandlerError, identity: CallIdentity, source: string, messageId?: string): CallEnded {
  return endCall({ ok: false, error, identity }, { source, messageId }, Date.now());
}

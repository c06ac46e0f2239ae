/**
 * How one delivered call ended, built once (`endCall`) and written by every sink: its log line, which
 * carries its metrics (EMF) and is its audit record, as it ends (sinks/call-line.ts); and the
 * result targets (the reply bus, a waiting flow), by the host that answers it through one dispatcher
 * (results/dispatch.ts). A new place a result goes is a target there.
 */
import type { CallEnded, EndedDelivery, EndedEnvelope, Outcome } from './delivery';
import type { MetricsSource } from './metrics/calls';
import { writeCallLine } from './sinks/call-line';

/**
 * Ends a call: builds its event and writes its log line. `router` is the executor that ran it
 * (its owner and tools name the metrics), `undefined` for a delivery refused before one took it.
 */
export function endCall(outcome: Outcome, delivery: EndedDelivery, started: number, router?: MetricsSource, envelope?: EndedEnvelope): CallEnded {
  const ended: CallEnded = {
    outcome,
    source: delivery.source,
    messageId: delivery.messageId,
    caller: delivery.caller,
    allowed: delivery.allowed,
    trace: delivery.trace,
    durationMs: Date.now() - started,
    resume: envelope?.resume,
    replyTo: envelope?.replyTo,
    finalAttempt: delivery.finalAttempt,
  };
  writeCallLine(ended, router);
  return ended;
}

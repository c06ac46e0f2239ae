/**
 * A call's trace context (W3C Trace Context): read from the envelope's `trace`, a Gateway call's
 * propagated `traceparent` header (an MCP client's `_meta.traceparent`), or an SQS record's
 * `AWSTraceHeader` (X-Ray's format, converted). A malformed value is ignored, and logged once per
 * container and source: it never fails a call.
 */
import { logWarning } from './log';

/** The trace a call continues: `ctx.trace`, and `trace_id` in its log line and its reply. */
export interface Trace {
  /** `00-<trace id>-<parent id>-<flags>`, as received (X-Ray's header converted to it). */
  readonly traceparent: string;
  /** Vendor state, passed on as received. */
  readonly tracestate?: string;
  /** The 32 hex digits of the trace id. */
  readonly traceId: string;
}

// Version ff, an all-zero trace id and an all-zero parent id are invalid (W3C Trace Context).
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** Printable ASCII, at most 512 characters (32 list members, as W3C allows, of modest size). */
const TRACESTATE = /^[\x20-\x7e]{0,512}$/;
const XRAY = /^Root=1-([0-9a-f]{8})-([0-9a-f]{24});Parent=([0-9a-f]{16})(?:;Sampled=([01]))?/;

const warned = new Set<string>();

/** The trace of a `traceparent` (and `tracestate`), or `undefined`; `source` names where a malformed one came from. */
export function traceOf(traceparent: unknown, tracestate: unknown, source: string): Trace | undefined {
  if (traceparent === undefined) return undefined;
  const match = typeof traceparent === 'string' && TRACEPARENT.exec(traceparent);
  if (!match || (tracestate !== undefined && !(typeof tracestate === 'string' && TRACESTATE.test(tracestate)))) return ignored(source);
  return tracestate ? { traceparent: traceparent as string, tracestate: tracestate as string, traceId: match[1] } : { traceparent: traceparent as string, traceId: match[1] };
}

/** The envelope's `trace`: `{ traceparent, tracestate? }`. */
export function envelopeTrace(value: unknown): Trace | undefined {
  if (value === undefined) return undefined;
  const trace = value as { traceparent?: unknown; tracestate?: unknown } | null;
  return traceOf(trace?.traceparent ?? null, trace?.tracestate, 'envelope');
}

/** X-Ray's `Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=<0|1>` as a traceparent. */
export function xrayTrace(header: unknown): Trace | undefined {
  if (header === undefined) return undefined;
  const m = typeof header === 'string' && XRAY.exec(header);
  return m ? traceOf(`00-${m[1]}${m[2]}-${m[3]}-0${m[4] === '1' ? 1 : 0}`, undefined, 'sqs') : ignored('sqs');
}

function ignored(source: string): undefined {
  if (!warned.has(source)) {
    warned.add(source);
    logWarning('a malformed trace context was ignored (logged once per source)', { trace_source: source });
  }
  return undefined;
}

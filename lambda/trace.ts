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

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_PARENT = '0'.repeat(16);
/** W3C allows 32 list members of up to 256 characters; more is refused as it would be downstream. */
const MAX_TRACESTATE = 512;
const TRACESTATE = /^[\x20-\x7e]*$/;

const warned = new Set<string>();

/** The trace of a `traceparent` (and `tracestate`), or `undefined`; `source` names where a malformed one came from. */
export function traceOf(traceparent: unknown, tracestate: unknown, source: string): Trace | undefined {
  if (traceparent === undefined) return undefined;
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!match || match[1] === 'ff' || match[2] === ZERO_TRACE || match[3] === ZERO_PARENT) return ignored(source);
  if (tracestate === undefined || tracestate === '') return { traceparent, traceId: match[2] } as Trace;
  if (typeof tracestate !== 'string' || tracestate.length > MAX_TRACESTATE || !TRACESTATE.test(tracestate)) return ignored(source);
  return { traceparent: traceparent as string, tracestate, traceId: match[2] };
}

/** The envelope's `trace`: `{ traceparent, tracestate? }`. */
export function envelopeTrace(value: unknown): Trace | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return ignored('envelope');
  const { traceparent, tracestate } = value as { traceparent?: unknown; tracestate?: unknown };
  return traceOf(traceparent ?? null, tracestate, 'envelope');
}

/**
 * X-Ray's `Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=<0|1>` as a traceparent: the trace id
 * is the root's two hex parts joined, the parent id X-Ray's, the flags its sampling decision.
 */
export function xrayTrace(header: unknown): Trace | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string') return ignored('sqs');
  const fields = new Map(header.split(';').map((part) => part.trim().split('=', 2) as [string, string]));
  const root = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/.exec(fields.get('Root') ?? '');
  const parent = fields.get('Parent') ?? '';
  if (!root || !/^[0-9a-f]{16}$/.test(parent)) return ignored('sqs');
  return traceOf(`00-${root[1]}${root[2]}-${parent}-${fields.get('Sampled') === '1' ? '01' : '00'}`, undefined, 'sqs');
}

function ignored(source: string): undefined {
  if (!warned.has(source)) {
    warned.add(source);
    logWarning('a malformed trace context was ignored (logged once per source)', { trace_source: source });
  }
  return undefined;
}

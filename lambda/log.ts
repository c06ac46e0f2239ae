/**
 * Structured log lines: one JSON object per line on stdout, which CloudWatch keeps as is. Call
 * lines never carry args or result values. Lines with metrics carry them in CloudWatch's Embedded
 * Metric Format (metrics/emf.ts); they go to `process.stdout` itself because, with Lambda's JSON log
 * format, what the global `console` prints is wrapped under `message`, where CloudWatch does not
 * look for `_aws`.
 *
 * A line is written at the end of the JavaScript turn in which its call ended, together with the
 * lines of the calls that ended in that same turn (one write instead of one per line), and before
 * any tool starts. So nothing waits past the turn: a killed or out-of-memory invocation keeps the
 * lines of the calls that finished before it, a tool's own output follows the lines of the calls
 * that ended before it started, and no line waits for another invocation.
 */
import type { AuditFields } from './audit';
import { embed, type EmbeddedMetrics } from './metrics/emf';

/** A call's line: its audit record's fields, and the error beside `outcome`. */
export interface CallLogFields extends AuditFields {
  readonly tool: string | null;
  readonly call_id: string | null;
  readonly status?: string;
  readonly error?: { readonly type: string; readonly message: string; readonly retryable: boolean };
}

/** A call's line, its metrics embedded. */
export function logCall(fields: CallLogFields, metrics: EmbeddedMetrics): void {
  writeEmbedded(fields.error ? 'ERROR' : 'INFO', 'tool call', fields, metrics);
}

/** A line of figures only (an expirer run, a decision), its metrics embedded. */
export function logMetrics(message: string, fields: Record<string, unknown>, metrics: EmbeddedMetrics): void {
  writeEmbedded('INFO', message, fields, metrics);
}

/** An audit record of its own (a decision, an expiry), its metrics embedded when given. */
export function logAudit(message: string, fields: AuditFields, metrics?: EmbeddedMetrics): void {
  if (metrics) writeEmbedded('INFO', message, fields, metrics);
  else write({ level: 'INFO', message, ...fields });
}

function writeEmbedded(level: string, message: string, fields: object, metrics: EmbeddedMetrics): void {
  writeLine(embed(JSON.stringify({ level, message, ...fields, ...metrics.members }), metrics.directive));
}

export function logWarning(message: string, fields: Record<string, unknown> = {}): void {
  write({ level: 'WARN', message, ...fields });
}

/** Lines of the current turn not yet written. */
let unwritten = '';

function write(line: Record<string, unknown>): void {
  writeLine(JSON.stringify(line));
}

function writeLine(json: string): void {
  if (unwritten === '') process.nextTick(writeLogLines);
  unwritten += `${json}\n`;
}

/** Writes the current turn's lines now: before a tool starts, and before an invocation returns. */
export function writeLogLines(): void {
  if (unwritten === '') return;
  const lines = unwritten;
  unwritten = '';
  process.stdout.write(lines);
}

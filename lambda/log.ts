/**
 * Structured log lines: one JSON object per line on stdout, which CloudWatch keeps as is. Call
 * lines never carry args or result values.
 *
 * Each line is written when its call ends, in one write of its own: nothing is held, so a killed
 * or out-of-memory invocation keeps the lines of the calls that finished, handlers in one process
 * share no state, and a tool's own output stays next to its call line.
 */

export interface CallLogFields {
  readonly tool: string | null;
  readonly run_id: string | null;
  readonly call_id: string | null;
  readonly approval_id: string | null;
  readonly message_id: string | null;
  readonly source: string;
  readonly status?: string;
  readonly error?: { readonly type: string; readonly message: string; readonly retryable: boolean };
  readonly duration_ms: number;
}

export function logCall(fields: CallLogFields): void {
  write({ level: fields.error ? 'ERROR' : 'INFO', message: 'tool call', ...fields });
}

export function logWarning(message: string, fields: Record<string, unknown> = {}): void {
  write({ level: 'WARN', message, ...fields });
}

function write(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

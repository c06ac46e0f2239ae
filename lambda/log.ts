/**
 * Structured log lines: one JSON object per line on stdout, which CloudWatch keeps as is. Call
 * lines never carry args or result values (§6).
 *
 * While an invocation runs, lines are kept and written together when it ends (one write per batch
 * instead of one per call); outside an invocation they are written at once.
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

let pending: string[] | undefined;

export function logCall(fields: CallLogFields): void {
  write({ level: fields.error ? 'ERROR' : 'INFO', message: 'tool call', ...fields });
}

export function logWarning(message: string, fields: Record<string, unknown> = {}): void {
  write({ level: 'WARN', message, ...fields });
}

/** Keeps lines until `flushLogLines`: called when an invocation starts. */
export function holdLogLines(): void {
  pending ??= [];
}

/** Writes the kept lines and stops keeping them: called when an invocation ends. */
export function flushLogLines(): void {
  const lines = pending;
  pending = undefined;
  if (lines && lines.length > 0) process.stdout.write(lines.join(''));
}

function write(line: Record<string, unknown>): void {
  const text = `${JSON.stringify(line)}\n`;
  if (pending) pending.push(text);
  else process.stdout.write(text);
}

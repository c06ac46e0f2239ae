/**
 * A call's log line (the docs' "Logs"): its ids, how it ended and how long it took, never args or
 * result values; its metrics embedded (EMF, metrics/calls.ts).
 */
import type { CallEnded } from '../delivery';
import { logCall } from '../log';
import { callMetrics, type MetricsSource } from '../metrics/calls';

export function writeCallLine(ended: CallEnded, router: MetricsSource | undefined): void {
  const { outcome } = ended;
  const { identity } = outcome;
  logCall(
    {
      tool: identity.tool ?? null,
      run_id: identity.runId ?? null,
      call_id: identity.callId ?? null,
      approval_id: identity.approvalId ?? null,
      message_id: ended.messageId ?? null,
      source: ended.source,
      ...(outcome.ok
        ? { status: outcome.reply.status }
        : { error: { type: outcome.error.name, message: outcome.error.message, retryable: outcome.error.retryable } }),
      duration_ms: ended.durationMs,
    },
    callMetrics(router, {
      tool: identity.tool,
      allowed: ended.allowed,
      failed: !outcome.ok,
      durationMs: ended.durationMs,
      requested: outcome.ok && outcome.reply.status === 'pending_approval',
      duplicate: outcome.ok && outcome.kept === true,
    }),
  );
}

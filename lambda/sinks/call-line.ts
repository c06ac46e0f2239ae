/**
 * A call's log line (docs: "Logs"), which is also its audit record (audit.ts): its ids, whom it
 * acted for, how it ended and how long it took, the hash of its tool and args, never args or result
 * values; its metrics embedded (EMF, metrics/calls.ts). Written by the runtime once the call has
 * ended, whatever the tool did.
 */
import { AUDIT_RECORD } from '../audit';
import type { CallEnded } from '../delivery';
import { logCall } from '../log';
import { callMetrics, ownerOf, type MetricsSource } from '../metrics/calls';

export function writeCallLine(ended: CallEnded, router: MetricsSource | undefined): void {
  const { outcome } = ended;
  const { identity } = outcome;
  // A resume acts for the caller of the call that asked; a refused delivery for its host's.
  const caller = identity.caller ?? ended.caller;
  const trace = identity.trace ?? ended.trace;
  // One flat literal, no spreads: V8 turns a literal built from spreads and twenty more keys into a
  // slow dictionary object, which cost more than the rest of the call (measured in `npm run bench`).
  logCall(
    {
      record: AUDIT_RECORD,
      time: new Date().toISOString(),
      owner: ownerOf(router),
      event: 'call',
      tool: identity.tool ?? null,
      'gen_ai.tool.name': identity.tool ?? null,
      run_id: identity.runId ?? null,
      call_id: identity.callId ?? null,
      'gen_ai.tool.call.id': identity.callId ?? null,
      approval_id: identity.approvalId ?? null,
      'enduser.id': caller?.id ?? null,
      'caller.kind': caller?.kind ?? null,
      'caller.verified': caller?.verified ?? null,
      message_id: ended.messageId ?? null,
      source: ended.source,
      status: outcome.ok ? outcome.reply.status : undefined,
      error: outcome.ok ? undefined : { type: outcome.error.name, message: outcome.error.message, retryable: outcome.error.retryable },
      outcome: outcome.ok ? outcome.reply.status : outcome.error.name,
      duration_ms: ended.durationMs,
      args_sha256: identity.fingerprint ?? null,
      trace_id: trace === undefined ? null : trace.traceId,
    },
    callMetrics(router, {
      tool: identity.tool,
      allowed: ended.allowed,
      failed: !outcome.ok,
      durationMs: ended.durationMs,
      requested: outcome.ok && outcome.reply.status === 'pending_approval',
      duplicate: outcome.ok && outcome.kept === true,
      rateLimited: !outcome.ok && outcome.error.name === 'RateLimited',
    }),
  );
}

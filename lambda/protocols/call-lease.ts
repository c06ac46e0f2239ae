/**
 * The duplicate-call lease: at-least-once delivery must not run a side-effecting tool twice.
 * The first delivery of (run_id, call_id) takes a lease until its invocation ends, runs the tool and
 * keeps its reply; a redelivery gets the kept reply, a copy that arrives while the holder runs gets
 * `CallInProgress` (or `already_done` while the holder's source will deliver it again), and the same
 * ids with another tool or args are refused. The store keeps the lease; the protocol is here.
 */
import { callFields, writeAfterRun } from '../bounded-write';
import type { Delivery, Outcome, PlainCall } from '../delivery';
import type { CallEnvelope } from '../envelope';
import { CallInProgress, callIdsReused, ToolTimeout } from '../errors';
import type { OkReply, Reply } from '../reply';
import { runCall } from '../run-tool';
import type { CallStore } from '../stores/types';
import type { Tool } from '../tool';

/**
 * Runs the call under its lease. Throws the call's errors: the envelope names the failed call.
 * `admit` (the tool's rate limit) is checked once the lease is taken, so a duplicate is never
 * counted; a refusal gives the lease back, so the call runs when it comes again.
 */
export async function runLeased(
  calls: CallStore,
  tool: Tool<any>,
  args: unknown,
  envelope: CallEnvelope,
  delivery: Delivery,
  call: PlainCall,
  admit?: () => Promise<void>,
): Promise<Outcome> {
  const { runId, callId } = envelope;
  const key = { runId, callId };
  const identity = call;
  const { invocationEnd } = delivery.deadline;
  const begun = await calls.begin(key, {
    fingerprint: call.fingerprint,
    leaseUntil: invocationEnd,
    heldUntil: delivery.redelivery?.at,
    heldBy: delivery.redelivery?.message,
  });
  switch (begun.state) {
    case 'done':
      return { ok: true, reply: begun.reply as Reply, identity, kept: true };
    case 'in_progress':
      throw new CallInProgress(`Call ${callId} of run ${runId} is running in another invocation; retry later.`);
    case 'held':
      // A duplicate copy: the delivery holding the call ran it, runs it, or its source delivers it again.
      return { ok: true, reply: { status: 'already_done', tool: tool.name, run_id: runId, call_id: callId }, identity };
    case 'mismatch':
      throw callIdsReused(runId, callId);
  }
  let reply: OkReply;
  try {
    await admit?.();
    reply = await runCall(tool, args, call, delivery);
  } catch (error) {
    // A run that timed out may still be going: its lease stands until the invocation ends.
    if (!(error instanceof ToolTimeout)) {
      await writeAfterRun('abandon', () => calls.abandon(key, begun.token), invocationEnd, callFields(envelope));
    }
    throw error;
  }
  // The tool ran: a slow or failed store write now must not make the delivery fail and run it again.
  await writeAfterRun('finish', () => calls.finish(key, begun.token, reply), invocationEnd, callFields(envelope));
  return { ok: true, reply, identity };
}

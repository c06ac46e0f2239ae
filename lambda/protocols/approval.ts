/**
 * The approval flow. A call whose tool requires approval creates its approval (idempotently)
 * and replies as the approval stands; it never runs the tool. A resume claims the decided approval
 * (one delivery wins), runs the tool with the stored args, and completes it with the result, or
 * releases it when the tool threw; a claim that fails answers why, in the order the contract checks.
 * The approvals runner (the engine, or a store) keeps the state; the protocol is here.
 */
import { randomUUID } from 'node:crypto';
import { callFields, writeAfterRun } from '../bounded-write';
import type { Delivery, Outcome, PlainCall } from '../delivery';
import type { CallEnvelope } from '../envelope';
import {
  ApprovalDenied,
  ApprovalNotFound,
  asToolHandlerError,
  CallInProgress,
  callIdsReused,
  toolNotAllowed,
  ToolTimeout,
  ToolUsageError,
} from '../errors';
import { ENV } from '../construct-contract';
import { approvalIdFor, callFingerprint } from '../ids';
import type { AlreadyDoneReply, OkReply, Reply } from '../reply';
import { runCall } from '../run-tool';
import { approvalGone } from '../stores/store-errors';
import type { ApprovalRecord, HandlerApprovalStore, ClaimOutcome } from '../stores/types';
import type { Tool } from '../tool';
import type { Trace } from '../trace';

/**
 * Creates the call's approval, or answers as the one it already has stands. `call` is the call as the
 * executor knows it: its fingerprint, and whom it acts for (the approval records who asked).
 */
export async function requestApproval(
  approvals: HandlerApprovalStore,
  tool: Tool<any>,
  envelope: CallEnvelope,
  call: PlainCall,
): Promise<Outcome> {
  const { runId, callId, args } = envelope;
  const approvalId = approvalIdFor(runId, callId);
  const identity = { ...call, approvalId };
  try {
    const { fingerprint, caller, trace } = call;
    const { created, record } = await approvals.create({
      approvalId,
      tool: tool.name,
      args,
      runId,
      callId,
      fingerprint,
      ...(caller === undefined ? {} : { requestedBy: caller }),
      ...(envelope.replyTo === undefined ? {} : { flow: envelope.replyTo.kind }),
      ...(trace === undefined ? {} : { trace }),
    });
    if (!created && record.fingerprint !== fingerprint) throw callIdsReused(runId, callId);
    if (record.status === 'denied') throw denied(record);
    if (record.completedAt !== undefined || isClaimed(record)) return { ok: true, reply: alreadyDone(record), identity };
    return {
      ok: true,
      reply: {
        status: 'pending_approval',
        tool: tool.name,
        run_id: runId,
        call_id: callId,
        approval_id: approvalId,
        expires_at: new Date(record.expiresAt).toISOString(),
        ...inboxLink(approvalId),
        ...(trace === undefined ? {} : { trace_id: trace.traceId }),
      },
      identity,
      approvalArgs: record.args,
    };
  } catch (error) {
    return { ok: false, error: asToolHandlerError(error), identity };
  }
}

/** Where a person decides the approval, when an approvals inbox serves this handler (`ENV.inboxUrl`). */
function inboxLink(approvalId: string): { inbox_url?: string } {
  const base = process.env[ENV.inboxUrl];
  return base ? { inbox_url: `${base}${encodeURIComponent(approvalId)}` } : {};
}

/** Who resumes, and what: the handler's owner, the tools it may run now, and where they are. */
export interface ResumeScope {
  readonly owner: string;
  readonly allowed: ReadonlySet<string>;
  readonly tools: ReadonlyMap<string, Tool<any>>;
}

/**
 * Resumes a decided approval. Throws while the approval is unknown (the envelope names it only);
 * once its record is read, the outcome names the call the record holds.
 */
export async function resumeApproval(
  approvals: HandlerApprovalStore,
  approvalId: string,
  scope: ResumeScope,
  delivery: Delivery,
): Promise<Outcome> {
  // A token of our own: a claim whose answer was lost, tried again, is recognised as ours. An
  // approval outside the delivery's limits comes back missing, unclaimed.
  const claim = await approvals.claim(approvalId, {
    until: delivery.deadline.invocationEnd,
    allowedTools: scope.allowed,
    token: randomUUID(),
    ...delivery.resumeLimits,
  });
  const { record } = claim;
  if (!record) throw approvalGone(approvalId);
  // The resume runs, and is recorded, for the caller of the call that asked, whoever resumes it, and
  // continues that call's trace.
  const trace = record.trace ?? delivery.trace;
  const identity = {
    tool: record.tool,
    runId: record.runId,
    callId: record.callId,
    approvalId: record.approvalId,
    fingerprint: record.fingerprint,
    caller: record.requestedBy,
    flow: record.flow !== undefined,
    trace,
  };
  try {
    const reply = claim.claimed ? await runClaimed(approvals, claim, scope.tools.get(record.tool)!, delivery, trace) : unclaimable(record, scope);
    return { ok: true, reply, identity };
  } catch (error) {
    return { ok: false, error: asToolHandlerError(error), identity };
  }
}

async function runClaimed(
  approvals: HandlerApprovalStore,
  claim: Extract<ClaimOutcome, { claimed: true }>,
  tool: Tool<any>,
  delivery: Delivery,
  trace: Trace | undefined,
): Promise<Reply> {
  const { record, token } = claim;
  const { approvalId, runId, callId } = record;
  const { invocationEnd } = delivery.deadline;
  let reply: OkReply;
  try {
    if (record.decidedFingerprint !== callFingerprint(record.tool, record.args)) throw notDecidedOn(record);
    const args = await tool.parseArgs(record.args);
    reply = await runCall(tool, args, { runId, callId, approvalId, caller: record.requestedBy, trace, flow: record.flow !== undefined }, delivery);
  } catch (error) {
    // A run that timed out may still be going: its claim lapses at the invocation's end.
    if (!(error instanceof ToolTimeout)) {
      await writeAfterRun('release', () => approvals.release(approvalId, token), invocationEnd, callFields(record));
    }
    throw error;
  }
  // The tool ran: a slow or failed store write now must not make the delivery fail and run it again.
  // An offloaded result is kept as its reference.
  const kept = reply.result_ref === undefined ? reply.result : { result_ref: reply.result_ref };
  await writeAfterRun('complete', () => approvals.complete(approvalId, token, kept), invocationEnd, callFields(record));
  return reply;
}

/** Why a claim failed, in the order the contract checks. */
function unclaimable(record: ApprovalRecord, scope: ResumeScope): Reply {
  const { approvalId } = record;
  if (record.owner !== scope.owner) {
    throw new ToolUsageError(`Approval ${approvalId} is owned by ${record.owner}, not by ${scope.owner}; it cannot be resumed here.`);
  }
  if (!scope.allowed.has(record.tool)) throw toolNotAllowed(record.tool);
  if (record.status === 'pending') {
    throw new ToolUsageError(`Approval ${approvalId} is not decided yet; resume it once an approver has decided.`);
  }
  if (record.status === 'denied') throw denied(record);
  if (record.status === 'expired') throw new ApprovalNotFound(`Approval ${approvalId} expired before it was decided.`);
  if (record.completedAt !== undefined || isClaimed(record)) return alreadyDone(record);
  if (record.decidedFingerprint !== callFingerprint(record.tool, record.args)) throw notDecidedOn(record);
  throw new CallInProgress(`Approval ${approvalId} was claimed concurrently; retry later.`);
}

function isClaimed(record: ApprovalRecord): boolean {
  return record.claimedUntil !== undefined && record.claimedUntil > Date.now();
}

function alreadyDone(record: ApprovalRecord): AlreadyDoneReply {
  return {
    status: 'already_done',
    tool: record.tool,
    run_id: record.runId,
    call_id: record.callId,
    approval_id: record.approvalId,
    ...(record.hasResult ? { result: record.result } : {}),
  };
}

/**
 * The denial as the caller (often an end user, through an agent) reads it: the reason, never who
 * decided (`decided_by` stays in the approval's record, for the approvals API and the CLI).
 */
function denied(record: ApprovalRecord): ApprovalDenied {
  const reason = record.reason ? `: ${record.reason}` : ' (no reason given)';
  return new ApprovalDenied(`Approval ${record.approvalId} for tool ${record.tool} was denied${reason}`);
}

function notDecidedOn(record: ApprovalRecord): ToolUsageError {
  return new ToolUsageError(
    `Approval ${record.approvalId} was not decided on the tool and args it now holds; ` +
      'it changed after the decision, or was decided without the store\'s decide. It will not run.',
  );
}

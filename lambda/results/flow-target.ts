/**
 * A flow waiting for its call (`reply_to`, docs/flows.md) as a result target. Each call completes
 * its flow exactly once: success with the reply, or failure `ToolHandler.<ErrorName>`. A call that
 * waits for its approval keeps its reply_to (the flow store), and the resume or the expiry completes
 * it. A conditional write records each completion before it is sent, so a duplicate delivery, a
 * second resume or a kept reply never completes a flow twice; an engine that cannot be reached gets
 * the record taken back and the delivery retried; an engine that says the flow has closed gets it
 * recorded, and nothing retried.
 */
import { randomUUID } from 'node:crypto';
import type { CallEnded } from '../delivery';
import { ApprovalNotFound, CallInProgress, ToolUsageError, type ToolHandlerError } from '../errors';
import { awsFlowEngines, FLOW_CLOSED_ERRORS, type Completion, type FlowEngines } from '../flows/engines';
import type { ReplyTo } from '../flows/reply-to';
import { approvalIdFor } from '../ids';
import { logWarning } from '../log';
import type { OkReply, Reply } from '../reply';
import { FLOW_COMPLETION_BYTES } from '../result-offload';
import { FLOW_COMPLETION, type ApprovalRecord, type FlowStore } from '../stores/types';
import type { ResultTarget, TargetTook } from './targets';

/** The prefix of every error name a flow sees: `ToolHandler.ApprovalDenied`, ... */
export const FLOW_ERROR_PREFIX = 'ToolHandler.';

export const APPROVAL_EXPIRED_ERROR = `${FLOW_ERROR_PREFIX}ApprovalExpired`;

export function flowTarget(flows: FlowStore, engines: FlowEngines = awsFlowEngines): ResultTarget {
  return {
    name: 'waiting flow',
    takesReplyTo: true,
    async callEnded(ended: CallEnded): Promise<TargetTook> {
      const plan = planOf(ended);
      if (!plan) return { held: true };
      const carriedError = !ended.outcome.ok;
      if (plan.keep) {
        try {
          await flows.keepReplyTo(plan.approvalId, plan.keep);
          return { held: true };
        } catch (error) {
          logWarning('keeping the flow\'s reply_to failed; the delivery will be retried', { approval_id: plan.approvalId, error: nameOf(error) });
          return { held: false };
        }
      }
      const done = await completeOnce(flows, engines, plan.approvalId, ended.replyTo, plan.completion!);
      return done ? { held: true, carriedError } : { held: false };
    },
    async approvalExpired(record: ApprovalRecord): Promise<boolean> {
      if (record.flow === undefined) return true;
      const completion: Completion = {
        ok: false,
        error: APPROVAL_EXPIRED_ERROR,
        cause: `Approval ${record.approvalId} for tool ${record.tool} expired before it was decided.`,
      };
      return completeOnce(flows, engines, record.approvalId, undefined, completion);
    },
  };
}

interface Plan {
  readonly approvalId: string;
  /** Keep this reply_to for the resume. */
  readonly keep?: ReplyTo;
  readonly completion?: Completion;
}

/** What the call's end means for a flow waiting for it: nothing, keep its reply_to, or complete it. */
function planOf(ended: CallEnded): Plan | undefined {
  const { outcome } = ended;
  const { identity } = outcome;
  // A resume completes a flow only when its approval says one waits: other resumes pay no round trip.
  if (ended.resume ? identity.flow !== true : !ended.replyTo) return undefined;
  const approvalId =
    identity.approvalId ?? (identity.runId !== undefined && identity.callId !== undefined ? approvalIdFor(identity.runId, identity.callId) : undefined);
  if (approvalId === undefined) return undefined;
  if (outcome.ok) {
    const { reply } = outcome;
    if (reply.status === 'pending_approval') return ended.replyTo ? { approvalId, keep: ended.replyTo } : undefined;
    const ok = asOk(reply);
    return ok ? { approvalId, completion: success(ok) } : undefined;
  }
  const { error } = outcome;
  // A stray resume (not decided yet, another owner's, gone, claimed meanwhile) says nothing of the call's fate.
  if (ended.resume && (error instanceof ToolUsageError || error instanceof ApprovalNotFound || error instanceof CallInProgress)) return undefined;
  // A retryable failure comes back, unless the source has given up on it (its dead-letter queue has it now).
  if (error.retryable && !ended.finalAttempt) return undefined;
  return { approvalId, completion: failure(error) };
}

/** The reply a flow gets: `ok`, or an `already_done` whose run finished (a resume retried after the run). */
function asOk(reply: Reply): OkReply | undefined {
  if (reply.status === 'ok') return reply;
  if (reply.status === 'already_done' && 'result' in reply && reply.approval_id !== undefined) {
    return { status: 'ok', tool: reply.tool, run_id: reply.run_id, call_id: reply.call_id, result: reply.result, approval_id: reply.approval_id };
  }
  return undefined;
}

function success(reply: OkReply): Completion {
  const output = JSON.stringify(reply);
  const bytes = Buffer.byteLength(output, 'utf8');
  if (bytes <= FLOW_COMPLETION_BYTES) return { ok: true, output };
  return {
    ok: false,
    error: `${FLOW_ERROR_PREFIX}ToolFailed`,
    cause: `The result of tool ${reply.tool} is ${bytes} bytes, over the ${FLOW_COMPLETION_BYTES} bytes a flow's completion may carry; return a smaller result.`,
  };
}

function failure(error: ToolHandlerError): Completion {
  return { ok: false, error: `${FLOW_ERROR_PREFIX}${error.name}`, cause: error.message };
}

/**
 * Records the completion, sends it, and says whether the flow has it (or never will): false when it
 * must be tried again (the record could not be written, or the engine could not be reached).
 */
async function completeOnce(
  flows: FlowStore,
  engines: FlowEngines,
  approvalId: string,
  given: ReplyTo | undefined,
  completion: Completion,
): Promise<boolean> {
  const token = randomUUID();
  let replyTo: ReplyTo | undefined;
  try {
    replyTo = await flows.beginCompletion(approvalId, given, token, completion.ok ? FLOW_COMPLETION.succeeded : FLOW_COMPLETION.failed);
  } catch (error) {
    logWarning('recording the flow\'s completion failed; it will be tried again', { approval_id: approvalId, error: nameOf(error) });
    return false;
  }
  // Completed already (a duplicate, a second resume), or no flow waits for this approval.
  if (!replyTo) return true;
  try {
    await engines.complete(replyTo, completion);
    return true;
  } catch (error) {
    const name = nameOf(error);
    if (FLOW_CLOSED_ERRORS.has(name)) {
      logWarning('the flow had closed before its completion came; recorded, not retried', { approval_id: approvalId, error: name });
      await flows.completedClosed(approvalId, token).catch(() => undefined);
      return true;
    }
    logWarning('completing the flow failed; it will be tried again', { approval_id: approvalId, error: name });
    await flows.undoCompletion(approvalId, replyTo, token, given === undefined).catch((undoError: unknown) => {
      logWarning('taking back the flow\'s completion record failed: the flow waits until its own timeout', {
        approval_id: approvalId,
        error: nameOf(undoError),
      });
    });
    return false;
  }
}

/** An error's name only: an engine's message may quote the token it refused. */
function nameOf(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name.length > 0 ? name : 'Error';
}

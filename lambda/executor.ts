import type { CallEnvelope, Envelope, ResumeEnvelope } from './envelope';
import {
  AdapterError,
  configError,
  ApprovalDenied,
  ApprovalNotFound,
  CallInProgress,
  ToolNotFound,
  ToolTimeout,
  ToolUsageError,
} from './errors';
import { randomUUID } from 'node:crypto';
import { approvalIdFor, callFingerprint } from './ids';
import { writeAfterRun } from './bounded-write';
import { markKept, type AlreadyDoneReply, type CallIdentity, type OkReply, type PendingApprovalReply, type Reply } from './reply';
import { withApprovalArgs } from './reply-bus';
import { startCallDeadline, type Deadline } from './deadline';
import { runTool } from './run-tool';
import { approvalGone } from './stores/store-errors';
import { defaultStores, ownerFrom } from './stores/default';
import { HANDLER_OWNER } from './names';
import { isCallStore, type ApprovalRecord, type ApprovalRunner, type CallStore, type ClaimOutcome } from './stores/types';
import type { Tool } from './tool';

export interface ToolExecutorOptions {
  /** The tools it can run; names must be unique. */
  readonly tools: readonly Tool<any>[];
  /**
   * Where approvals are kept; `false` turns approvals off (and, unless `calls` is given, duplicate
   * suppression too).
   * @default the approvals engine named by TOOL_HANDLER_APPROVALS_ENGINE, else a DynamoApprovalStore
   * on the table named by TOOL_HANDLER_APPROVALS_TABLE, else none
   */
  readonly approvals?: ApprovalRunner | false;
  /**
   * Duplicate-call suppression; `false` turns it off.
   * @default `approvals` when given (both built-in stores are call stores too), else a
   * DynamoApprovalStore on TOOL_HANDLER_APPROVALS_TABLE, else off
   */
  readonly calls?: CallStore | false;
  /**
   * The owner whose approvals this executor resumes.
   * @default TOOL_HANDLER_OWNER, else 'handler'
   */
  readonly owner?: string;
}

/** How one envelope runs, as `execute` takes it. */
export interface ExecuteOptions {
  /** Tools allowed to run; `undefined` allows every tool the executor has. */
  readonly allowed?: ReadonlySet<string>;
  readonly source: string;
  /** Epoch ms bounding the tool. */
  readonly deadline: number;
  /** Epoch ms at which leases and claims taken for this call lapse. */
  readonly invocationEnd: number;
  /** Aborting it ends the call as a `ToolTimeout`. */
  readonly signal?: AbortSignal;
}

/** How one envelope runs inside the package: one `Deadline` instead of its numbers and signals. */
export interface RunOptions {
  /** Tools allowed to run; `undefined` allows every tool the executor has. */
  readonly allowed?: ReadonlySet<string>;
  readonly source: string;
  readonly deadline: Deadline;
  /** When the delivery's source delivers it again should it fail. @default - never: leases end with the invocation */
  readonly redelivery?: Redelivery;
}

/**
 * How a delivery's source delivers it again should it fail: the call's lease is held against every
 * other delivery until then, so a copy arriving meanwhile is answered without running the call (the
 * holder ran it, runs it, or comes back by itself), while the holder's own redelivery still runs it.
 */
export interface Redelivery {
  /**
   * Epoch ms before which the source cannot deliver it again.
   * @default - while the call item lives, when `message` is given
   */
  readonly at?: number;
  /**
   * The delivery's SQS message (`<source>/<messageId>`): its own redelivery takes the call over as
   * soon as this invocation has ended, and a copy of it is never acknowledged as held (SQS deletes a
   * message by its latest receipt). @default - none
   */
  readonly message?: string;
}

/** How one envelope ended, with what became known of the call (for logs and error replies). */
export type Execution =
  | { readonly ok: true; readonly reply: Reply; readonly identity: CallIdentity }
  | { readonly ok: false; readonly error: unknown; readonly identity: CallIdentity };

/**
 * A failure that carries what the executor learned of the call before it (the approval's id, or the
 * claimed record's tool and ids), as Powertools' `IdempotencyItemAlreadyExistsError` carries
 * `existingRecord`. It never leaves this module: `execute` throws the error it wraps.
 */
class FailedCall {
  constructor(
    readonly error: unknown,
    readonly identity: CallIdentity,
  ) {}
}

/**
 * Runs calls and resumes: checks the allowlist and args, creates and honours
 * approvals, suppresses duplicate deliveries and bounds each tool by its deadline.
 *
 * @example
 * import * as z from 'zod';
 * import { handleEnvelope, MemoryApprovalStore, tool, ToolExecutor } from 'cdk-tool-handler/lambda';
 *
 * const refund = tool({
 *   name: 'refund',
 *   input: z.object({ orderId: z.string() }),
 *   requiresApproval: true,
 *   run: ({ orderId }) => ({ refunded: orderId }),
 * });
 * const approvals = new MemoryApprovalStore(); // tests and local runs; in Lambda the default store
 * const executor = new ToolExecutor({ tools: [refund], approvals });
 *
 * const pending = await handleEnvelope(executor, { tool: 'refund', args: { orderId: 'o1' } });
 * if (pending.status !== 'pending_approval') throw new Error('expected a pending approval');
 * await approvals.decide(pending.approval_id, { approved: true, by: 'alice' });
 * const done = await handleEnvelope(executor, { approval_id: pending.approval_id });
 * console.log(done.status); // ok
 */
export class ToolExecutor {
  readonly approvals: ApprovalRunner | undefined;
  readonly calls: CallStore | undefined;
  readonly owner: string;
  private readonly tools = new Map<string, Tool<any>>();

  constructor(options: ToolExecutorOptions) {
    for (const t of options.tools) {
      if (this.tools.has(t.name)) throw configError(`ToolExecutor \`tools\` has two tools named ${t.name}; names must be unique.`);
      this.tools.set(t.name, t);
    }
    // Off is `false` for both; `undefined` (or leaving the option out) means the default.
    const approvalsGiven = options.approvals !== undefined;
    const callsGiven = options.calls !== undefined;
    const defaults = approvalsGiven && callsGiven ? {} : defaultStores();
    this.approvals = options.approvals === false ? undefined : (options.approvals ?? defaults.approvals);
    const calls = callsGiven ? options.calls : approvalsGiven ? options.approvals : defaults.calls;
    this.calls = calls !== false && isCallStore(calls) ? calls : undefined;
    this.owner = options.owner ?? ownerFrom() ?? HANDLER_OWNER;
  }

  /** Names of the tools this executor has. */
  get toolNames(): string[] {
    return [...this.tools.keys()];
  }

  /** The tools this executor has, in the order given. */
  get toolList(): readonly Tool<any>[] {
    return [...this.tools.values()];
  }

  /** Runs one envelope; resolves to its reply or throws the runtime's errors (errors.ts). */
  async execute(envelope: Envelope, options: ExecuteOptions): Promise<Reply> {
    const { allowed, source, deadline: at, invocationEnd, signal } = options;
    const deadline = startCallDeadline(at, invocationEnd, signal);
    try {
      const execution = await this.run(envelope, { allowed, source, deadline });
      if (execution.ok) return execution.reply;
      throw execution.error;
    } finally {
      deadline.end();
    }
  }

  /**
   * `execute` without the throw, returning the call's identity with the outcome: the event adapters
   * log and address error replies by it.
   * @internal
   */
  async run(envelope: Envelope, options: RunOptions): Promise<Execution> {
    const known: CallIdentity = {
      tool: envelope.tool,
      runId: envelope.runId,
      callId: envelope.callId,
      approvalId: envelope.approvalId,
    };
    try {
      const reply = await (envelope.isResume ? this.resume(envelope, options) : this.call(envelope, options));
      return { ok: true, reply, identity: { ...known, ...replyIdentity(reply) } };
    } catch (error) {
      if (error instanceof FailedCall) return { ok: false, error: error.error, identity: { ...known, ...error.identity } };
      return { ok: false, error, identity: known };
    }
  }

  private async call(envelope: CallEnvelope, options: RunOptions): Promise<Reply> {
    const { runId, callId } = envelope;
    const tool = this.allowedTool(envelope.tool, options.allowed);
    const args = await tool.parseArgs(envelope.args);
    if (tool.needsApproval(args)) return this.requestApproval(tool, envelope);

    // A read-only tool may run again harmlessly: no state store round trip at all.
    const calls = tool.readOnly ? undefined : this.calls;
    if (!calls) return this.okReply(tool, args, envelope, options);
    const key = { runId, callId };
    const begun = await calls.begin(key, {
      fingerprint: callFingerprint(tool.name, envelope.args),
      leaseUntil: options.deadline.invocationEnd,
      heldUntil: options.redelivery?.at,
      heldBy: options.redelivery?.message,
    });
    switch (begun.state) {
      case 'done':
        return markKept(begun.reply as Reply);
      case 'in_progress':
        throw new CallInProgress(`Call ${callId} of run ${runId} is running in another invocation; retry later.`);
      case 'held':
        // A duplicate copy: the delivery holding the call ran it, runs it, or its source delivers it again.
        return { status: 'already_done', tool: tool.name, run_id: runId, call_id: callId };
      case 'mismatch':
        throw sameIdsOtherCall(envelope);
    }
    let reply: OkReply;
    try {
      reply = await this.okReply(tool, args, envelope, options);
    } catch (error) {
      // A run that timed out may still be going: its lease stands until the invocation ends.
      if (!(error instanceof ToolTimeout)) {
        await writeAfterRun('abandon', () => calls.abandon(key, begun.token), options.deadline.invocationEnd, callFields(envelope));
      }
      throw error;
    }
    // The tool ran: a slow or failed store write now must not make the delivery fail and run it again.
    await writeAfterRun('finish', () => calls.finish(key, begun.token, reply), options.deadline.invocationEnd, callFields(envelope));
    return reply;
  }

  private async okReply(tool: Tool<any>, args: unknown, envelope: CallEnvelope, options: RunOptions): Promise<OkReply> {
    const result = await runTool(tool, args, { runId: envelope.runId, callId: envelope.callId, source: options.source }, options.deadline);
    return { status: 'ok', tool: tool.name, run_id: envelope.runId, call_id: envelope.callId, result };
  }

  private async requestApproval(tool: Tool<any>, envelope: CallEnvelope): Promise<Reply> {
    const approvals = this.requireApprovals(`Tool ${tool.name} requires approval`);
    const approvalId = approvalIdFor(envelope.runId, envelope.callId);
    try {
      return await this.createApproval(approvals, tool, envelope, approvalId);
    } catch (error) {
      throw new FailedCall(error, { approvalId });
    }
  }

  private async createApproval(approvals: ApprovalRunner, tool: Tool<any>, envelope: CallEnvelope, approvalId: string): Promise<Reply> {
    const fingerprint = callFingerprint(tool.name, envelope.args);
    const outcome = await approvals.create({
      approvalId,
      tool: tool.name,
      args: envelope.args,
      runId: envelope.runId,
      callId: envelope.callId,
      fingerprint,
    });
    const record = outcome.record;
    if (!outcome.created && record.fingerprint !== fingerprint) throw sameIdsOtherCall(envelope);
    if (record.status === 'denied') throw denied(record);
    if (record.completedAt !== undefined || isClaimed(record)) return alreadyDone(record);
    const reply: PendingApprovalReply = {
      status: 'pending_approval',
      tool: tool.name,
      run_id: envelope.runId,
      call_id: envelope.callId,
      approval_id: approvalId,
      expires_at: new Date(record.expiresAt).toISOString(),
    };
    return withApprovalArgs(reply, record.args);
  }

  private async resume(envelope: ResumeEnvelope, options: RunOptions): Promise<Reply> {
    const { approvalId } = envelope;
    const approvals = this.requireApprovals(`Resuming approval ${approvalId} needs an approval store`);
    const allowed = this.allowedNames(options.allowed);
    // A token of our own: a claim whose answer was lost, tried again, is recognised as ours.
    const claim = await approvals.claim(approvalId, { until: options.deadline.invocationEnd, allowedTools: allowed, token: randomUUID() });
    if (!claim.record) throw approvalGone(approvalId);
    const { record } = claim;
    try {
      if (!claim.claimed) return this.unclaimable(approvalId, record, allowed);
      return await this.resumeClaimed(approvals, approvalId, claim, options);
    } catch (error) {
      throw new FailedCall(error, { tool: record.tool, runId: record.runId, callId: record.callId });
    }
  }

  private async resumeClaimed(
    approvals: ApprovalRunner,
    approvalId: string,
    claim: Extract<ClaimOutcome, { claimed: true }>,
    options: RunOptions,
  ): Promise<Reply> {
    const { record, token } = claim;
    const tool = this.tools.get(record.tool)!;
    let result: unknown;
    try {
      if (record.decidedFingerprint !== callFingerprint(record.tool, record.args)) throw notDecidedOn(record);
      const args = await tool.parseArgs(record.args);
      const call = { runId: record.runId, callId: record.callId, approvalId, source: options.source };
      result = await runTool(tool, args, call, options.deadline);
    } catch (error) {
      // A run that timed out may still be going: its claim lapses at the invocation's end.
      if (!(error instanceof ToolTimeout)) {
        await writeAfterRun('release', () => approvals.release(approvalId, token), options.deadline.invocationEnd, callFields(record));
      }
      throw error;
    }
    // The tool ran: a slow or failed store write now must not make the delivery fail and run it again.
    await writeAfterRun('complete', () => approvals.complete(approvalId, token, result), options.deadline.invocationEnd, callFields(record));
    const reply: OkReply = {
      status: 'ok',
      tool: record.tool,
      run_id: record.runId,
      call_id: record.callId,
      result,
      approval_id: approvalId,
    };
    return reply;
  }

  /** Why a claim failed, in the order the contract checks. */
  private unclaimable(approvalId: string, record: ApprovalRecord, allowed: ReadonlySet<string>): Reply {
    if (record.owner !== this.owner) {
      throw new ToolUsageError(`Approval ${approvalId} is owned by ${record.owner}, not by ${this.owner}; it cannot be resumed here.`);
    }
    if (!allowed.has(record.tool)) throw notAllowed(record.tool);
    if (record.status === 'pending') {
      throw new ToolUsageError(`Approval ${approvalId} is not decided yet; resume it once an approver has decided.`);
    }
    if (record.status === 'denied') throw denied(record);
    if (record.status === 'expired') throw new ApprovalNotFound(`Approval ${approvalId} expired before it was decided.`);
    if (record.completedAt !== undefined || isClaimed(record)) return alreadyDone(record);
    if (record.decidedFingerprint !== callFingerprint(record.tool, record.args)) throw notDecidedOn(record);
    throw new CallInProgress(`Approval ${approvalId} was claimed concurrently; retry later.`);
  }

  private allowedTool(name: string, allowed: ReadonlySet<string> | undefined): Tool<any> {
    const found = this.tools.get(name);
    if (!found || (allowed !== undefined && !allowed.has(name))) throw notAllowed(name);
    return found;
  }

  private allowedNames(allowed: ReadonlySet<string> | undefined): ReadonlySet<string> {
    if (allowed === undefined) return new Set(this.tools.keys());
    return new Set([...allowed].filter((name) => this.tools.has(name)));
  }

  private requireApprovals(what: string): ApprovalRunner {
    if (this.approvals) return this.approvals;
    throw new AdapterError(
      `${what}, but no approval store is configured: set TOOL_HANDLER_APPROVALS_ENGINE or TOOL_HANDLER_APPROVALS_TABLE, or pass \`approvals\` to ToolExecutor.`,
      { retryable: false },
    );
  }
}

function replyIdentity(reply: Reply): CallIdentity {
  return {
    tool: reply.tool,
    runId: reply.run_id,
    callId: reply.call_id,
    ...('approval_id' in reply && reply.approval_id !== undefined ? { approvalId: reply.approval_id } : {}),
  };
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

function denied(record: ApprovalRecord): ApprovalDenied {
  const by = record.decidedBy ? ` by ${record.decidedBy}` : '';
  const reason = record.reason ? `: ${record.reason}` : ' (no reason given)';
  return new ApprovalDenied(`Approval ${record.approvalId} for tool ${record.tool} was denied${by}${reason}`);
}

function notDecidedOn(record: ApprovalRecord): ToolUsageError {
  return new ToolUsageError(
    `Approval ${record.approvalId} was not decided on the tool and args it now holds; ` +
      'it changed after the decision, or was decided without the store\'s decide. It will not run.',
  );
}

function notAllowed(name: string): ToolNotFound {
  return new ToolNotFound(`Tool ${name} is unknown to this handler or not in its allowlist.`);
}

function sameIdsOtherCall(envelope: CallEnvelope): ToolUsageError {
  return new ToolUsageError(
    `Call ${envelope.callId} of run ${envelope.runId} was first sent with another tool or args; ` +
      'a new call needs new ids.',
  );
}

function callFields(call: { runId: string; callId: string; approvalId?: string }) {
  return { run_id: call.runId, call_id: call.callId, ...(call.approvalId === undefined ? {} : { approval_id: call.approvalId }) };
}

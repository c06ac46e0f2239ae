import { chooseStores, type ExecutorStoreOptions } from './default-stores';
import type { Delivery, EnvelopeRouter, Outcome, PlainCall } from './delivery';
import { envelopePayload, type Envelope } from './envelope';
import { admitCall, admitRate } from './admission';
import { AdapterError, asToolHandlerError, configError, toolNotAllowed } from './errors';
import { callFingerprint } from './ids';
import { handleEnvelope, type HandleEnvelopeOptions } from './handle-envelope';
import { requestApproval, resumeApproval } from './protocols/approval';
import { runLeased } from './protocols/call-lease';
import type { CallIdentity, Reply } from './reply';
import { runCall } from './run-tool';
import type { HandlerApprovalStore, CallStore } from './stores/types';
import type { Tool } from './tool';

/** What a `ToolExecutor` runs, and where it keeps approvals and calls (the stores' options: default-stores.ts). */
export interface ToolExecutorOptions extends ExecutorStoreOptions {
  /** The tools it can run; names must be unique. */
  readonly tools: readonly Tool<any>[];
}

/**
 * Runs calls and resumes: checks the allowlist and args, and hands each envelope to its protocol:
 * the approval flow (protocols/approval.ts), the duplicate-call lease (protocols/call-lease.ts), or
 * the tool straight away (a read-only tool, or no call store).
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
export class ToolExecutor implements EnvelopeRouter {
  readonly approvals: HandlerApprovalStore | undefined;
  readonly calls: CallStore | undefined;
  readonly owner: string;
  private readonly tools = new Map<string, Tool<any>>();

  constructor(options: ToolExecutorOptions) {
    for (const t of options.tools) {
      if (this.tools.has(t.name)) throw configError(`ToolExecutor \`tools\` has two tools named ${t.name}; names must be unique.`);
      this.tools.set(t.name, t);
    }
    ({ approvals: this.approvals, calls: this.calls, owner: this.owner } = chooseStores(options));
  }

  /** Names of the tools this executor has. */
  get toolNames(): string[] {
    return [...this.tools.keys()];
  }

  /** The tools this executor has, in the order given. */
  get toolList(): readonly Tool<any>[] {
    return [...this.tools.values()];
  }

  /** `handleEnvelope(this, envelope, options)` for an envelope already parsed (`parseEnvelope`). */
  execute(envelope: Envelope, options?: HandleEnvelopeOptions): Promise<Reply> {
    return handleEnvelope(this, envelopePayload(envelope), options);
  }

  /**
   * Hands one parsed envelope to the protocol that answers it; resolves to its outcome, never
   * rejects. A protocol returns the outcome, or throws when the envelope itself names the call.
   * The run path's step (handle-envelope.ts): run envelopes with `handleEnvelope`.
   */
  async route(envelope: Envelope, delivery: Delivery): Promise<Outcome> {
    // Named field by field: the envelope's reply_to is a credential, and an outcome's identity is logged.
    let identity: CallIdentity = envelope.isResume
      ? { approvalId: envelope.approvalId }
      : { tool: envelope.tool, runId: envelope.runId, callId: envelope.callId, caller: delivery.caller, trace: envelope.trace ?? delivery.trace };
    try {
      if (envelope.isResume) {
        const approvals = this.requireApprovals(`Resuming approval ${envelope.approvalId} needs an approval store`);
        const scope = { owner: this.owner, allowed: this.allowedNames(delivery.allowed), tools: this.tools };
        return await resumeApproval(approvals, envelope.approvalId, scope, delivery);
      }
      const tool = this.tools.get(envelope.tool);
      if (!tool || (delivery.allowed !== undefined && !delivery.allowed.has(tool.name))) throw toolNotAllowed(envelope.tool, this.runnable(delivery));
      admitCall(tool, delivery);
      // Hashed once: the lease, the approval and the audit record all take it.
      const call: PlainCall = {
        tool: tool.name,
        runId: envelope.runId,
        callId: envelope.callId,
        fingerprint: callFingerprint(tool.name, envelope.args),
        caller: delivery.caller,
        trace: envelope.trace ?? delivery.trace,
        flow: envelope.replyTo !== undefined,
      };
      identity = call;
      const args = await tool.parseArgs(envelope.args);
      const admit = tool.rateLimit ? () => admitRate(tool, call, this.calls) : undefined;
      if (tool.needsApproval(args)) {
        await admit?.();
        return await requestApproval(this.requireApprovals(`Tool ${tool.name} requires approval`), tool, envelope, call);
      }
      // A read-only tool may run again harmlessly: no state store round trip at all.
      const calls = tool.readOnly ? undefined : this.calls;
      // Under a lease the call is counted once it is known to be new: a redelivery of a call that
      // ran, or a copy of one that runs, is answered as a duplicate and not counted again.
      if (calls) return await runLeased(calls, tool, args, envelope, delivery, call, admit);
      await admit?.();
      return { ok: true, reply: await runCall(tool, args, call, delivery), identity: call };
    } catch (error) {
      return { ok: false, error: asToolHandlerError(error), identity };
    }
  }

  private allowedNames(allowed: ReadonlySet<string> | undefined): ReadonlySet<string> {
    if (allowed === undefined) return new Set(this.tools.keys());
    return new Set([...allowed].filter((name) => this.tools.has(name)));
  }

  /** The tools a delivery may run, for the error that names them. */
  private runnable(delivery: Delivery): string[] {
    const names = [...this.tools.keys()];
    return delivery.allowed === undefined ? names : names.filter((name) => delivery.allowed!.has(name));
  }

  private requireApprovals(what: string): HandlerApprovalStore {
    if (this.approvals) return this.approvals;
    throw new AdapterError(
      `${what}, but no approval store is configured: set TOOL_HANDLER_APPROVALS_ENGINE or TOOL_HANDLER_APPROVALS_TABLE, or pass \`approvals\` to ToolExecutor.`,
      { retryable: false },
    );
  }
}

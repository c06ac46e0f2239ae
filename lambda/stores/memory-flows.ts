/** Flow items in this process's memory (tests and local runs), with the table's semantics (dynamo-flows.ts). */
import type { ReplyTo } from '../flows/reply-to';
import { FLOW_COMPLETION, type FlowCompletion, type FlowStore } from './types';

interface StoredFlow {
  replyTo?: ReplyTo;
  completedAt?: number;
  completedBy?: string;
  completion?: FlowCompletion;
}

export class MemoryFlowStore implements FlowStore {
  private readonly flows = new Map<string, StoredFlow>();

  constructor(private readonly now: () => number = Date.now) {}

  async keepReplyTo(approvalId: string, replyTo: ReplyTo): Promise<void> {
    const flow = this.flows.get(approvalId) ?? {};
    if (flow.completedAt !== undefined) return;
    this.flows.set(approvalId, { ...flow, replyTo });
  }

  async beginCompletion(approvalId: string, replyTo: ReplyTo | undefined, token: string, completion: FlowCompletion): Promise<ReplyTo | undefined> {
    const flow = this.flows.get(approvalId) ?? {};
    if (flow.completedAt !== undefined) return undefined;
    const target = replyTo ?? flow.replyTo;
    if (!target) return undefined;
    this.flows.set(approvalId, { completedAt: this.now(), completedBy: token, completion });
    return target;
  }

  async undoCompletion(approvalId: string, replyTo: ReplyTo, token: string, kept: boolean): Promise<void> {
    const flow = this.flows.get(approvalId);
    if (flow?.completedBy !== token) return;
    this.flows.set(approvalId, kept ? { replyTo } : {});
  }

  async completedClosed(approvalId: string, token: string): Promise<void> {
    const flow = this.flows.get(approvalId);
    if (flow?.completedBy === token) flow.completion = FLOW_COMPLETION.closed;
  }

  /** How the flow of `approvalId` was completed, if it was (for tests). */
  completionOf(approvalId: string): FlowCompletion | undefined {
    return this.flows.get(approvalId)?.completion;
  }
}

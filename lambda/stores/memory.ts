import { randomUUID } from 'node:crypto';
import { ApprovalNotFound, ToolUsageError } from '../errors';
import { changedSinceSeen } from './decision-errors';
import { HANDLER_OWNER } from '../names';
import { resolveStoreOptions, StoreOptions } from './options';
import type {
  ApprovalRecord,
  ApprovalStore,
  BeginInput,
  BeginOutcome,
  CallKey,
  CallStore,
  ClaimInput,
  ClaimOutcome,
  CreateApprovalInput,
  CreateApprovalOutcome,
  DecideInput,
  ListApprovalsInput,
} from './types';

interface StoredApproval {
  record: ApprovalRecord;
  claimToken?: string;
}

interface StoredCall {
  fingerprint: string;
  expiresAt: number;
  leaseToken?: string;
  leaseUntil?: number;
  reply?: unknown;
}

/**
 * Approvals and duplicate calls in this process's memory: for tests and local runs only, since a
 * Lambda container's memory is neither shared nor durable.
 */
export class MemoryApprovalStore implements ApprovalStore, CallStore {
  private readonly approvals = new Map<string, StoredApproval>();
  private readonly calls = new Map<string, StoredCall>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options?: StoreOptions) {
    const resolved = resolveStoreOptions(options);
    this.ttlMs = resolved.ttlSeconds * 1000;
    this.now = resolved.now;
  }

  async create(input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
    const existing = this.approvals.get(input.approvalId);
    if (existing) {
      if (existing.record.expiresAt <= this.now()) {
        // As in DynamoDB: the expired approval keeps its decision, so it cannot start afresh.
        throw new ToolUsageError(
          `The approval ${input.approvalId} for this call expired; send the call again with a new run_id or call_id.`,
        );
      }
      return { created: false, record: existing.record };
    }
    const createdAt = this.now();
    const record: ApprovalRecord = {
      approvalId: input.approvalId,
      tool: input.tool,
      args: structuredClone(input.args),
      runId: input.runId,
      callId: input.callId,
      fingerprint: input.fingerprint,
      owner: input.owner ?? HANDLER_OWNER,
      status: 'pending',
      createdAt,
      expiresAt: createdAt + this.ttlMs,
      hasResult: false,
    };
    this.approvals.set(input.approvalId, { record });
    return { created: true, record };
  }

  async get(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.live(approvalId)?.record;
  }

  async decide(approvalId: string, decision: DecideInput): Promise<ApprovalRecord> {
    const stored = this.live(approvalId);
    if (!stored) throw new ApprovalNotFound(`Approval ${approvalId} does not exist or has expired.`);
    if (stored.record.status !== 'pending') {
      throw new ToolUsageError(`Approval ${approvalId} is already decided (${stored.record.status}).`);
    }
    if (decision.fingerprint !== undefined && decision.fingerprint !== stored.record.fingerprint) throw changedSinceSeen(approvalId);
    stored.record = {
      ...stored.record,
      status: decision.approved ? 'approved' : 'denied',
      decidedBy: decision.by,
      decidedAt: this.now(),
      decidedFingerprint: stored.record.fingerprint,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    };
    return stored.record;
  }

  async claim(approvalId: string, input: ClaimInput): Promise<ClaimOutcome> {
    const stored = this.live(approvalId);
    const record = stored?.record;
    const claimable =
      record !== undefined &&
      record.owner === HANDLER_OWNER &&
      record.status === 'approved' &&
      record.completedAt === undefined &&
      (record.claimedUntil === undefined || record.claimedUntil <= this.now() || (input.token !== undefined && stored?.claimToken === input.token)) &&
      (input.allowedTools === undefined || input.allowedTools.has(record.tool));
    if (!stored || !claimable) return { claimed: false, record };
    const token = input.token ?? randomUUID();
    stored.claimToken = token;
    stored.record = { ...stored.record, claimedUntil: input.until };
    return { claimed: true, record: stored.record, token };
  }

  async release(approvalId: string, token: string): Promise<void> {
    const stored = this.approvals.get(approvalId);
    if (!stored || stored.claimToken !== token) return;
    stored.claimToken = undefined;
    const { claimedUntil: _lapsed, ...rest } = stored.record;
    stored.record = rest;
  }

  async complete(approvalId: string, token: string, result: unknown): Promise<void> {
    const stored = this.approvals.get(approvalId);
    if (!stored || stored.claimToken !== token) return;
    const { claimedUntil: _done, ...rest } = stored.record;
    stored.record = { ...rest, completedAt: this.now(), result: structuredClone(result), hasResult: true };
  }

  async list(input?: ListApprovalsInput): Promise<ApprovalRecord[]> {
    const now = this.now();
    return [...this.approvals.values()]
      .map((stored) => stored.record)
      .filter((record) => record.expiresAt > now && (!input?.pending || record.status === 'pending'));
  }

  async begin(key: CallKey, input: BeginInput): Promise<BeginOutcome> {
    const id = callId(key);
    const now = this.now();
    const existing = this.calls.get(id);
    if (existing && existing.expiresAt > now) {
      if (existing.fingerprint !== input.fingerprint) return { state: 'mismatch' };
      if (existing.leaseToken === undefined) return { state: 'done', reply: structuredClone(existing.reply) };
      if ((existing.leaseUntil ?? 0) > now) return { state: 'in_progress' };
    }
    const token = randomUUID();
    this.calls.set(id, {
      fingerprint: input.fingerprint,
      expiresAt: now + this.ttlMs,
      leaseToken: token,
      leaseUntil: input.leaseUntil,
    });
    return { state: 'started', token };
  }

  async finish(key: CallKey, token: string, reply: unknown): Promise<void> {
    const stored = this.calls.get(callId(key));
    if (!stored || stored.leaseToken !== token) return;
    this.calls.set(callId(key), {
      fingerprint: stored.fingerprint,
      expiresAt: this.now() + this.ttlMs,
      reply: structuredClone(reply),
    });
  }

  async abandon(key: CallKey, token: string): Promise<void> {
    if (this.calls.get(callId(key))?.leaseToken === token) this.calls.delete(callId(key));
  }

  private live(approvalId: string): StoredApproval | undefined {
    const stored = this.approvals.get(approvalId);
    return stored && stored.record.expiresAt > this.now() ? stored : undefined;
  }
}

function callId(key: CallKey): string {
  return JSON.stringify([key.runId, key.callId]);
}

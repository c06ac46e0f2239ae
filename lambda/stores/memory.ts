import { randomUUID } from 'node:crypto';
import { MemoryFlowStore } from './memory-flows';
import { newApprovalRecord } from './approval-record';
import { claimMaySee } from './claim-scope';
import { heldUntil, leaseAnswer } from './lease';
import { callFingerprint } from '../ids';
import { approvalMissing, callApprovalExpired, decisionRefused, unknownPosition } from './store-errors';
import { DEFAULT_PAGE_LIMIT, resolveStoreOptions, StoreOptions } from './options';
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
  ExpiryRun,
  ListApprovalsInput,
  ListPage,
  ListPageInput,
  RateWindow,
} from './types';

interface StoredApproval {
  record: ApprovalRecord;
  claimToken?: string;
  /** Marked expired, and handed back to the next `expireDue` (`retryExpiry`). */
  retryExpiry?: boolean;
}

interface StoredCall {
  fingerprint: string;
  expiresAt: number;
  leaseToken?: string;
  leaseUntil?: number;
  heldUntil?: number;
  heldBy?: string;
  reply?: unknown;
}

/**
 * Approvals and duplicate calls in this process's memory: for tests and local runs only, since a
 * Lambda container's memory is neither shared nor durable.
 *
 * @example
 * import { MemoryApprovalStore } from 'cdk-tool-handler/lambda';
 *
 * const store = new MemoryApprovalStore({ ttlSeconds: 3600 });
 * const { record } = await store.create({
 *   approvalId: 'apr_1', tool: 'refund', args: { orderId: 'o1' }, runId: 'r1', callId: 'c1', fingerprint: 'f',
 * });
 * console.log(record.status); // pending
 * console.log((await store.listPage({ status: 'pending' })).records.length); // 1
 */
export class MemoryApprovalStore implements ApprovalStore, CallStore {
  private readonly approvals = new Map<string, StoredApproval>();
  private readonly calls = new Map<string, StoredCall>();
  private readonly rates = new Map<string, { count: number; end: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly owner: string;
  /** The `reply_to` of calls whose flows wait (docs/flows.md). */
  readonly flows: MemoryFlowStore;

  constructor(options?: StoreOptions) {
    const resolved = resolveStoreOptions(options);
    this.ttlMs = resolved.ttlSeconds * 1000;
    this.now = resolved.now;
    this.owner = resolved.owner;
    this.flows = new MemoryFlowStore(this.now);
  }

  async create(input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
    const existing = this.approvals.get(input.approvalId);
    if (existing) {
      if (existing.record.expiresAt <= this.now()) {
        // As in DynamoDB: the expired approval keeps its decision, so it cannot start afresh.
        throw callApprovalExpired(input.approvalId);
      }
      return { created: false, record: existing.record };
    }
    const record = newApprovalRecord(input, input.owner ?? this.owner, this.now(), this.ttlMs);
    this.approvals.set(input.approvalId, { record });
    return { created: true, record };
  }

  async get(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.live(approvalId)?.record;
  }

  async read(approvalId: string): Promise<ApprovalRecord | undefined> {
    const stored = this.approvals.get(approvalId);
    return stored && this.withStatus(stored.record);
  }

  async decide(approvalId: string, decision: DecideInput): Promise<ApprovalRecord> {
    const stored = this.approvals.get(approvalId);
    if (!stored) throw approvalMissing(approvalId);
    const current = this.withStatus(stored.record);
    const fingerprint = callFingerprint(current.tool, current.args);
    if (current.status === 'expired') throw decisionRefused('expired', approvalId);
    if (current.status !== 'pending') throw decisionRefused('already_decided', approvalId, current.status);
    if (decision.fingerprint !== undefined && decision.fingerprint !== fingerprint) {
      throw decisionRefused('fingerprint_mismatch', approvalId);
    }
    stored.record = {
      ...stored.record,
      status: decision.approved ? 'approved' : 'denied',
      decidedBy: decision.by,
      decidedAt: this.now(),
      decidedFingerprint: fingerprint,
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    };
    return stored.record;
  }

  async claim(approvalId: string, input: ClaimInput): Promise<ClaimOutcome> {
    // An approval the claim may not see (claim-scope.ts) is as if missing: never claimed, never shown.
    const live = this.live(approvalId);
    const stored = live && claimMaySee(input, live.record) ? live : undefined;
    const record = stored?.record;
    const token = input.token ?? randomUUID();
    // Our own live claim (a retry whose first answer was lost) is ours as it stands: never extended.
    const ours = stored?.claimToken === token && record?.completedAt === undefined && (record?.claimedUntil ?? 0) > this.now();
    const claimable =
      record !== undefined &&
      record.owner === this.owner &&
      record.status === 'approved' &&
      record.decidedFingerprint === record.fingerprint &&
      record.decidedFingerprint === callFingerprint(record.tool, record.args) &&
      record.completedAt === undefined &&
      (record.claimedUntil === undefined || record.claimedUntil <= this.now() || ours) &&
      (input.allowedTools === undefined || input.allowedTools.has(record.tool));
    if (!stored || !claimable) return { claimed: false, record };
    if (ours) return { claimed: true, record, token };
    stored.claimToken = token;
    stored.record = { ...stored.record, claimedUntil: input.until };
    return { claimed: true, record: stored.record, token };
  }

  async release(approvalId: string, token: string): Promise<void> {
    const stored = this.approvals.get(approvalId);
    if (!stored || stored.claimToken !== token || stored.record.completedAt !== undefined) return;
    stored.claimToken = undefined;
    const { claimedUntil: _lapsed, ...rest } = stored.record;
    stored.record = rest;
  }

  async complete(approvalId: string, token: string, result: unknown): Promise<void> {
    const stored = this.approvals.get(approvalId);
    if (!stored || stored.claimToken !== token || stored.record.completedAt !== undefined) return;
    const { claimedUntil: _done, ...rest } = stored.record;
    stored.record = { ...rest, completedAt: this.now(), result: structuredClone(result), hasResult: true };
  }

  async list(input?: ListApprovalsInput): Promise<ApprovalRecord[]> {
    const now = this.now();
    return [...this.approvals.values()]
      .map((stored) => stored.record)
      .filter((record) => record.expiresAt > now && (!input?.pending || record.status === 'pending'))
      .sort((a, b) => a.createdAt - b.createdAt || a.approvalId.localeCompare(b.approvalId));
  }

  async expireDue(): Promise<ExpiryRun> {
    const now = this.now();
    const expired: ApprovalRecord[] = [];
    const retried: ApprovalRecord[] = [];
    let pending = 0;
    let oldestPendingCreatedAt: number | undefined;
    for (const stored of this.approvals.values()) {
      const record = stored.record;
      if (stored.retryExpiry && record.owner === this.owner) {
        stored.retryExpiry = false;
        retried.push(record);
        continue;
      }
      if (record.status !== 'pending' || record.expiredAt !== undefined || record.owner !== this.owner) continue;
      if (record.expiresAt > now) {
        pending += 1;
        oldestPendingCreatedAt = Math.min(oldestPendingCreatedAt ?? record.createdAt, record.createdAt);
        continue;
      }
      stored.record = { ...record, status: 'expired', expiredAt: now };
      expired.push(stored.record);
    }
    return { at: now, expired, retried, pending, ...(oldestPendingCreatedAt === undefined ? {} : { oldestPendingCreatedAt }) };
  }

  async retryExpiry(approvalId: string): Promise<void> {
    const stored = this.approvals.get(approvalId);
    if (stored?.record.expiredAt !== undefined && stored.record.status === 'expired') stored.retryExpiry = true;
  }

  /** Pages in creation order; `next` is the position after the page's last record. */
  async listPage(input?: ListPageInput): Promise<ListPage> {
    const all = [...this.approvals.values()]
      .map((stored) => this.withStatus(stored.record))
      .filter((record) => input?.status === undefined || record.status === input.status)
      .sort((a, b) => a.createdAt - b.createdAt || a.approvalId.localeCompare(b.approvalId));
    const start = input?.next === undefined ? 0 : Number(input.next);
    if (!Number.isInteger(start) || start < 0) {
      throw unknownPosition();
    }
    const end = start + (input?.limit ?? DEFAULT_PAGE_LIMIT);
    return { records: all.slice(start, end), ...(end < all.length ? { next: String(end) } : {}) };
  }

  async begin(key: CallKey, input: BeginInput): Promise<BeginOutcome> {
    const id = callId(key);
    const now = this.now();
    const existing = this.calls.get(id);
    if (existing && existing.expiresAt > now) {
      if (existing.fingerprint !== input.fingerprint) return { state: 'mismatch' };
      if (existing.leaseToken === undefined) return { state: 'done', reply: structuredClone(existing.reply) };
      const leaseUntil = existing.leaseUntil ?? 0;
      const answer = leaseAnswer({ leaseUntil, heldUntil: existing.heldUntil ?? leaseUntil, heldBy: existing.heldBy }, input, now);
      if (answer) return { state: answer };
    }
    const token = randomUUID();
    this.calls.set(id, {
      fingerprint: input.fingerprint,
      expiresAt: now + this.ttlMs,
      leaseToken: token,
      leaseUntil: input.leaseUntil,
      heldUntil: heldUntil(input, now + this.ttlMs),
      heldBy: input.heldBy,
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

  async countCall(window: RateWindow): Promise<boolean> {
    const id = JSON.stringify([window.counter, window.start]);
    const now = this.now();
    for (const [key, counted] of this.rates) if (counted.end <= now) this.rates.delete(key);
    const counted = this.rates.get(id) ?? { count: 0, end: window.end };
    if (counted.count >= window.limit) return false;
    this.rates.set(id, { count: counted.count + 1, end: counted.end });
    return true;
  }

  private withStatus(record: ApprovalRecord): ApprovalRecord {
    return record.status === 'pending' && record.expiresAt <= this.now() ? { ...record, status: 'expired' } : record;
  }

  private live(approvalId: string): StoredApproval | undefined {
    const stored = this.approvals.get(approvalId);
    return stored && stored.record.expiresAt > this.now() ? stored : undefined;
  }
}

function callId(key: CallKey): string {
  return JSON.stringify([key.runId, key.callId]);
}

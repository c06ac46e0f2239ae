/**
 * The two kinds of state the runtime keeps, behind interfaces so that the memory and DynamoDB
 * implementations are interchangeable (and held to the same contract tests).
 */

export type ApprovalStatus = 'pending' | 'approved' | 'denied';

/** An approval as the store holds it (§5). Times are epoch milliseconds. */
export interface ApprovalRecord {
  readonly approvalId: string;
  readonly tool: string;
  /** The call's `args` exactly as the call sent them (JSON). */
  readonly args: Record<string, unknown>;
  readonly runId: string;
  readonly callId: string;
  /** Who created it; `toolHandler` resumes only approvals owned by `handler`. */
  readonly owner: string;
  readonly status: ApprovalStatus;
  readonly decidedBy?: string;
  readonly decidedAt?: number;
  readonly reason?: string;
  /** The fingerprint of `tool` and `args` as they stand; pass it to `decide` to decide on exactly these. */
  readonly fingerprint: string;
  /** The fingerprint of tool and args that the decision was taken on. */
  readonly decidedFingerprint?: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Epoch ms at which a live claim lapses; absent when nobody holds it. */
  readonly claimedUntil?: number;
  /** Set once the approved tool ran to completion. */
  readonly completedAt?: number;
  /** The kept result of a completed run; absent when it was too large to keep. */
  readonly result?: unknown;
  /** Whether `result` holds the kept result (a kept `null` is a result too). */
  readonly hasResult: boolean;
}

export interface CreateApprovalInput {
  readonly approvalId: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly runId: string;
  readonly callId: string;
  /** Hash of tool and args: the same ids re-sent with other tool or args must not match. */
  readonly fingerprint: string;
  /** @default 'handler' */
  readonly owner?: string;
}

export interface CreateApprovalOutcome {
  /** True when this call created it; false when it already existed. */
  readonly created: boolean;
  /** The approval as it stands; its `fingerprint` is the one it was first created with. */
  readonly record: ApprovalRecord;
}

export interface DecideInput {
  readonly approved: boolean;
  readonly by: string;
  readonly reason?: string;
  /**
   * The approval's `fingerprint` as the approver saw it: the decision is refused (`ToolUsageError`)
   * if tool or args changed since. @default - decides on tool and args as they stand
   */
  readonly fingerprint?: string;
}

export interface ClaimInput {
  /** Epoch ms at which the claim lapses (the claiming invocation's end). */
  readonly until: number;
  /**
   * Tools that may run now; the claim fails when the approval's tool is not one of them.
   * `undefined` means any tool.
   */
  readonly allowedTools?: ReadonlySet<string>;
  /**
   * The claim's token, chosen by the caller so that a retried claim (whose first answer was lost)
   * is recognised as its own: a live claim holding this token is claimed again, not refused.
   * @default - a fresh random token
   */
  readonly token?: string;
}

export type ClaimOutcome =
  | { readonly claimed: true; readonly record: ApprovalRecord; readonly token: string }
  /** `record` is the approval as it stands (undefined when missing or expired). */
  | { readonly claimed: false; readonly record: ApprovalRecord | undefined };

export interface ListApprovalsInput {
  /** Only approvals not yet decided. @default false */
  readonly pending?: boolean;
}

export interface ApprovalStore {
  /** Creates the approval if absent (idempotent); returns it as it stands either way. */
  create(input: CreateApprovalInput): Promise<CreateApprovalOutcome>;
  /** The approval, or `undefined` when missing or expired. */
  get(approvalId: string): Promise<ApprovalRecord | undefined>;
  /** Decides once. A second decision is a `ToolUsageError`, a missing approval `ApprovalNotFound`. */
  decide(approvalId: string, decision: DecideInput): Promise<ApprovalRecord>;
  /**
   * Claims an approved, unclaimed (or lapsed), unfinished, unexpired approval owned by `handler`.
   * Exactly one of several concurrent claims wins.
   */
  claim(approvalId: string, input: ClaimInput): Promise<ClaimOutcome>;
  /** Gives a claim back after the tool threw, so a retry may run it. */
  release(approvalId: string, token: string): Promise<void>;
  /** Marks the claimed run finished and keeps its result (JSON-safe). */
  complete(approvalId: string, token: string, result: unknown): Promise<void>;
  list(input?: ListApprovalsInput): Promise<ApprovalRecord[]>;
}

/** What `begin` found for a (run_id, call_id). */
export type BeginOutcome =
  /** This delivery owns the call until `leaseUntil`; it must `finish` or `abandon` with `token`. */
  | { readonly state: 'started'; readonly token: string }
  /** A finished call: its kept reply (JSON). */
  | { readonly state: 'done'; readonly reply: unknown }
  /** Another invocation holds a live lease. */
  | { readonly state: 'in_progress' }
  /** The same ids were first sent with another tool or args. */
  | { readonly state: 'mismatch' };

export interface CallKey {
  readonly runId: string;
  readonly callId: string;
}

export interface BeginInput {
  readonly fingerprint: string;
  /** Epoch ms at which the lease lapses (the invocation's end). */
  readonly leaseUntil: number;
}

/** Duplicate-call suppression (§6a). */
export interface CallStore {
  begin(key: CallKey, input: BeginInput): Promise<BeginOutcome>;
  /** Keeps the reply of a finished call, for redeliveries. */
  finish(key: CallKey, token: string, reply: unknown): Promise<void>;
  /** Removes the record after a failed run, so a retry may run the call. */
  abandon(key: CallKey, token: string): Promise<void>;
}

/** True when `store` also implements `CallStore` (both built-in approval stores do). */
export function isCallStore(store: unknown): store is CallStore {
  const s = store as Partial<CallStore> | undefined;
  return typeof s?.begin === 'function' && typeof s.finish === 'function' && typeof s.abandon === 'function';
}

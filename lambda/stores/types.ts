/**
 * The two kinds of state the runtime keeps, behind interfaces so that the memory and DynamoDB
 * implementations are interchangeable (and held to the same contract tests).
 */
import type { Caller } from '../caller';
import type { ReplyTo } from '../flows/reply-to';
import type { Trace } from '../trace';

/** `expired`: not decided before `expiresAt`; final, like a decision. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** An approval as the store holds it. Times are epoch milliseconds. */
export interface ApprovalRecord {
  readonly approvalId: string;
  readonly tool: string;
  /** The call's `args` exactly as the call sent them (JSON). */
  readonly args: Record<string, unknown>;
  readonly runId: string;
  readonly callId: string;
  /** Who created it; `toolHandler` resumes only approvals of its own owner (`handler` by default). */
  readonly owner: string;
  /** Whom the call that asked acted for, when its host proved one; its resume runs for the same caller. */
  readonly requestedBy?: Caller;
  /** A flow waits for the call (`reply_to`'s kind, `sfn` or `durable`; never the token): its resume or expiry completes it. */
  readonly flow?: string;
  /** The trace of the call that asked; its resume continues it. */
  readonly trace?: Trace;
  readonly status: ApprovalStatus;
  readonly decidedBy?: string;
  readonly decidedAt?: number;
  readonly reason?: string;
  /** The hash of `tool` and `args`; pass it to `decide` to decide on exactly these. */
  readonly fingerprint: string;
  /** The fingerprint of tool and args that the decision was taken on. */
  readonly decidedFingerprint?: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Epoch ms at which a live claim lapses; absent when nobody holds it. */
  readonly claimedUntil?: number;
  /** Set once the approved tool ran to completion. */
  readonly completedAt?: number;
  /** Set when the expirer marked it expired (epoch ms). */
  readonly expiredAt?: number;
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
  /** Hash of tool and args (`callFingerprint`): the same ids re-sent with other tool or args must not match. */
  readonly fingerprint: string;
  /** @default - the store's `owner` */
  readonly owner?: string;
  /** Whom the call acts for. @default - no caller */
  readonly requestedBy?: Caller;
  /** The kind of the flow that waits for the call (`reply_to.kind`). @default - none waits */
  readonly flow?: string;
  /** The trace the call continues. @default - none */
  readonly trace?: Trace;
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
   * unless the stored tool and args still hash to it. @default - decides on tool and args as they stand
   */
  readonly fingerprint?: string;
}

export interface ClaimInput {
  /** Epoch ms at which the claim lapses (the claiming invocation's end). */
  readonly until: number;
  /**
   * The claim's token, chosen by the claimant: a repeated claim with the same token succeeds, so a
   * claim whose answer was lost is recognised as one's own. @default - a fresh random token
   */
  readonly token?: string;
  /**
   * Tools that may run now; the claim fails when the approval's tool is not one of them.
   * `undefined` means any tool.
   */
  readonly allowedTools?: ReadonlySet<string>;
  /**
   * Only an approval whose call's `run_id` starts with this may be claimed; any other is answered
   * as missing (`record` undefined), so the claimant learns nothing of it. @default - any run id
   */
  readonly runIdPrefix?: string;
  /**
   * Only an approval that this caller's call asked for may be claimed (`null`: one asked by a call
   * without a caller); any other is answered as missing, like `runIdPrefix`. @default - any caller
   */
  readonly requestedBy?: string | null;
}

export type ClaimOutcome =
  | { readonly claimed: true; readonly record: ApprovalRecord; readonly token: string }
  /** `record` is the approval as it stands (undefined when missing, expired, or outside `runIdPrefix`). */
  | { readonly claimed: false; readonly record: ApprovalRecord | undefined };

export interface ListApprovalsInput {
  /** Only approvals not yet decided (and not expired). @default false */
  readonly pending?: boolean;
}

export interface ListPageInput {
  /** Only approvals of this status. @default - every status */
  readonly status?: ApprovalStatus;
  /** At most this many records (a page may hold fewer). @default 50 */
  readonly limit?: number;
  /** Where the previous page stopped (its `next`). @default - from the start */
  readonly next?: string;
}

export interface ListPage {
  readonly records: ApprovalRecord[];
  /** Present while more may follow: pass it as `next`. */
  readonly next?: string;
}

/**
 * What a tool handler needs of approvals: create one for a call, and claim, release and
 * complete a decided one. The construct's handler reaches these through the approvals engine.
 */
export interface HandlerApprovalStore {
  /** Creates the approval if absent (idempotent); returns it as it stands either way. */
  create(input: CreateApprovalInput): Promise<CreateApprovalOutcome>;
  /**
   * Claims an approved, unclaimed (or lapsed), unfinished, unexpired approval of the store's owner,
   * whose stored tool and args still hash to the decision's fingerprint. Exactly one of several
   * concurrent claims wins; a repeat with the winner's token wins again.
   */
  claim(approvalId: string, input: ClaimInput): Promise<ClaimOutcome>;
  /** Gives a claim back after the tool threw, so a retry may run it. */
  release(approvalId: string, token: string): Promise<void>;
  /** Marks the claimed run finished and keeps its result (JSON-safe); a repeat is harmless. */
  complete(approvalId: string, token: string, result: unknown): Promise<void>;
}

export interface ApprovalStore extends HandlerApprovalStore {
  /** The approval, or `undefined` when missing or expired. */
  get(approvalId: string): Promise<ApprovalRecord | undefined>;
  /** The approval whatever its status (`expired` included), or `undefined` when missing. */
  read(approvalId: string): Promise<ApprovalRecord | undefined>;
  /**
   * Decides once, binding the decision to the hash of the stored tool and args. A second decision
   * or an expired approval is a `ToolUsageError`, a missing approval `ApprovalNotFound`.
   */
  decide(approvalId: string, decision: DecideInput): Promise<ApprovalRecord>;
  /** Live approvals, oldest first. */
  list(input?: ListApprovalsInput): Promise<ApprovalRecord[]>;
  /** One page of approvals of any status (`expired` included), for the approvals API. */
  listPage(input?: ListPageInput): Promise<ListPage>;
  /**
   * Marks every undecided approval of the store's owner past its expiry as `expired` (final: deciding
   * it is refused); returns the ones this call marked, those handed back by `retryExpiry`, and what
   * stays pending.
   */
  expireDue(): Promise<ExpiryRun>;
  /**
   * Hands an approval this store marked expired to the next `expireDue` again (in `retried`): one of
   * the expiry's targets could not be told of it (a waiting flow's engine unreachable).
   */
  retryExpiry(approvalId: string): Promise<void>;
}

/** What one `expireDue` did and found: the expirer's figures. */
export interface ExpiryRun {
  /** Epoch ms, by the store's clock, at which the run began. */
  readonly at: number;
  /** The approvals this run marked expired. */
  readonly expired: ApprovalRecord[];
  /** Approvals marked expired by an earlier run whose targets are to be told again (`retryExpiry`). */
  readonly retried: ApprovalRecord[];
  /** Approvals of the store's owner still pending after the run. */
  readonly pending: number;
  /** Epoch ms at which the oldest of them was created; absent when none is pending. */
  readonly oldestPendingCreatedAt?: number;
}

/** What `begin` found for a (run_id, call_id). */
export type BeginOutcome =
  /** This delivery owns the call until `leaseUntil`; it must `finish` or `abandon` with `token`. */
  | { readonly state: 'started'; readonly token: string }
  /** A finished call: its kept reply (JSON). */
  | { readonly state: 'done'; readonly reply: unknown }
  /** Another invocation holds a live lease: it may be running the call now. */
  | { readonly state: 'in_progress' }
  /**
   * Another delivery holds the call, and its source delivers it again should it fail: until
   * `heldUntil` this one is a duplicate copy, answered without running (the holder ran the call, is
   * running it, or will be delivered again by its source).
   */
  | { readonly state: 'held' }
  /** The same ids were first sent with another tool or args. */
  | { readonly state: 'mismatch' };

export interface CallKey {
  readonly runId: string;
  readonly callId: string;
}

export interface BeginInput {
  readonly fingerprint: string;
  /** Epoch ms at which the lease's invocation ends: until then the call may be running. */
  readonly leaseUntil: number;
  /**
   * Epoch ms until which another delivery of the call is answered `held`, at or after `leaseUntil`:
   * the earliest time the source could deliver this call again (Lambda's asynchronous retry delay).
   * @default - while the item lives when `heldBy` is given, else `leaseUntil`
   */
  readonly heldUntil?: number;
  /**
   * The delivery's SQS message: its own redelivery takes the call over once `leaseUntil` has passed
   * (crash recovery on the source's own timing), and a copy of it is never answered `held` (SQS
   * deletes a message by its latest receipt), but waits like a retry. @default - none
   */
  readonly heldBy?: string;
}

/** One fixed window of a rate limit (`tool({ rateLimit })`). Times are epoch milliseconds. */
export interface RateWindow {
  /** What the count is of: the tool, and the caller when each caller is counted apart. */
  readonly counter: string;
  readonly start: number;
  /** When the window ends: its count may be forgotten then. */
  readonly end: number;
  /** Calls the window allows. */
  readonly limit: number;
}

/** Duplicate-call suppression, and the counts of rate-limited tools. */
export interface CallStore {
  /**
   * Counts one call in `window`, in one conditional write, unless the window already holds `limit`
   * calls; true when it was counted. A store without it cannot serve a tool with a `rateLimit`.
   */
  countCall?(window: RateWindow): Promise<boolean>;
  begin(key: CallKey, input: BeginInput): Promise<BeginOutcome>;
  /** Keeps the reply of a finished call, for redeliveries. */
  finish(key: CallKey, token: string, reply: unknown): Promise<void>;
  /** Removes the record after a failed run, so a retry may run the call. */
  abandon(key: CallKey, token: string): Promise<void>;
}

/** How a flow's completion ended: what was sent, or that the flow had closed before it came. */
export const FLOW_COMPLETION = { succeeded: 'succeeded', failed: 'failed', closed: 'closed' } as const;
export type FlowCompletion = (typeof FLOW_COMPLETION)[keyof typeof FLOW_COMPLETION];

/**
 * Where the `reply_to` of a waiting flow is kept (docs/flows.md), and the record that completes it
 * exactly once. Keyed by the call's approval id (`approvalIdFor(run_id, call_id)`), so a call that
 * ends at once and one that waits for its approval share one record. Only the handler and the
 * expirer reach it.
 */
export interface FlowStore {
  /** Keeps the reply_to of a call that waits for its approval; does nothing once its flow was completed. */
  keepReplyTo(approvalId: string, replyTo: ReplyTo): Promise<void>;
  /**
   * Records the completion, once (a conditional write): resolves the reply_to to complete (`replyTo`
   * when given, else the kept one, which the same write removes), or `undefined` when the flow was
   * completed already or nothing is kept for it. `token` names this attempt.
   */
  beginCompletion(approvalId: string, replyTo: ReplyTo | undefined, token: string, completion: FlowCompletion): Promise<ReplyTo | undefined>;
  /** Takes this attempt's record back (and the kept reply_to, when `kept`): the engine could not be reached, a retry completes it. */
  undoCompletion(approvalId: string, replyTo: ReplyTo, token: string, kept: boolean): Promise<void>;
  /** Records that the engine said the flow had closed before the completion came (timed out, or gone). */
  completedClosed(approvalId: string, token: string): Promise<void>;
}

/** The flow store that `store` carries (`flows`: both built-in approval stores do), if any. */
export function flowsOf(store: unknown): FlowStore | undefined {
  return (store as { flows?: FlowStore } | undefined)?.flows;
}

/** True when `store` also implements `CallStore` (both built-in approval stores do). */
export function isCallStore(store: unknown): store is CallStore {
  const s = store as Partial<CallStore> | undefined;
  return typeof s?.begin === 'function' && typeof s.finish === 'function' && typeof s.abandon === 'function';
}

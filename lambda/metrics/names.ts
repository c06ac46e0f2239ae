/**
 * The CloudWatch metrics (docs/operations.md), as both halves name them: the runtime writes them (EMF) and
 * the construct's metric methods, alarms and dashboard read them. Plain constants only: jsii follows
 * this file from `lib/`. Kept apart per function so that each bundle holds only its own.
 */

/** The namespace when `metricsNamespace` (TOOL_HANDLER_METRICS_NAMESPACE) is not set. */
export const DEFAULT_METRICS_NAMESPACE = 'CdkToolHandler';

/** Dimension names. Ids, args and error messages are never dimensions. */
export const DIMENSIONS = {
  owner: 'Owner',
  /** Only allowlisted tool names: a call naming any other tool is counted under `Owner` alone. */
  tool: 'Tool',
  /** `Approved` or `Denied`. */
  decision: 'Decision',
} as const;

/** The handler's, per call, under `[Owner]` and, for an allowlisted tool, `[Owner, Tool]`. */
export const CALL_METRICS = {
  /** 1 per call. */
  calls: { name: 'Calls', unit: 'Count' },
  /** 1 for an error reply or a thrown error, else 0. */
  failed: { name: 'Failed', unit: 'Count' },
  /** From the envelope's arrival to its outcome. */
  duration: { name: 'Duration', unit: 'Milliseconds' },
  /** 1 on a `pending_approval` reply (absent otherwise). */
  approvalsRequested: { name: 'ApprovalsRequested', unit: 'Count' },
  /** 1 when a reply kept from an earlier delivery of the call answers (absent otherwise). */
  duplicatesSuppressed: { name: 'DuplicatesSuppressed', unit: 'Count' },
  /** 1 when the call was refused by its tool's `rateLimit` (absent otherwise). */
  rateLimited: { name: 'RateLimited', unit: 'Count' },
} as const;

/** The expirer's, once per run, under `[Owner]`. */
export const EXPIRY_METRICS = {
  /** Approvals of the owner still pending after the run. */
  pendingApprovals: { name: 'PendingApprovals', unit: 'Count' },
  /** Age of the oldest of them; 0 when none. */
  oldestPendingApprovalAge: { name: 'OldestPendingApprovalAge', unit: 'Seconds' },
  /** Approvals the run marked expired. */
  approvalsExpired: { name: 'ApprovalsExpired', unit: 'Count' },
} as const;

/** The approvals API's, once per decision, under `[Owner]` and `[Owner, Decision]`. */
export const DECISION_METRICS = {
  approvalsDecided: { name: 'ApprovalsDecided', unit: 'Count' },
} as const;

/** Values of the `Decision` dimension. */
export const DECISION_DIMENSION = { approved: 'Approved', denied: 'Denied' } as const;

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

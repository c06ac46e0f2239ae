/**
 * The approvals' own figures: the expirer's per run under `[Owner]`, and the approvals
 * API's per decision under `[Owner]` and `[Owner, Decision]`.
 */
import { directive, type EmbeddedMetrics } from './emf';
import { DECISION_DIMENSION, DECISION_METRICS, DIMENSIONS as D, EXPIRY_METRICS as E } from './names';

/** Whose figures these are, and where CloudWatch files them. */
export interface MetricsTarget {
  readonly owner: string;
  readonly namespace: string;
}

/** What the figures of an expirer run are made of (a store's `ExpiryRun` is one): epoch ms throughout. */
export interface ExpiryFigures {
  readonly at: number;
  readonly expired: readonly unknown[];
  readonly pending: number;
  readonly oldestPendingCreatedAt?: number;
}

/** An expirer run's: `PendingApprovals`, `OldestPendingApprovalAge` (seconds, 0 when none), `ApprovalsExpired`. */
export function expiryMetrics(target: MetricsTarget, run: ExpiryFigures): EmbeddedMetrics {
  const oldest = run.oldestPendingCreatedAt;
  return {
    directive: directive(target.namespace, [[D.owner]], [E.pendingApprovals, E.oldestPendingApprovalAge, E.approvalsExpired]),
    members: {
      [D.owner]: target.owner,
      [E.pendingApprovals.name]: run.pending,
      [E.oldestPendingApprovalAge.name]: oldest === undefined ? 0 : Math.max(0, Math.round((run.at - oldest) / 1000)),
      [E.approvalsExpired.name]: run.expired.length,
    },
  };
}

/** A decision's: `ApprovalsDecided` 1. */
export function decisionMetrics(target: MetricsTarget, approved: boolean): EmbeddedMetrics {
  return {
    directive: directive(target.namespace, [[D.owner], [D.owner, D.decision]], [DECISION_METRICS.approvalsDecided]),
    members: {
      [D.owner]: target.owner,
      [D.decision]: approved ? DECISION_DIMENSION.approved : DECISION_DIMENSION.denied,
      [DECISION_METRICS.approvalsDecided.name]: 1,
    },
  };
}

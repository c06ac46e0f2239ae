/**
 * The expirer: run on a schedule, it marks undecided approvals past their expiry as `expired` and
 * tells every result target of each (results/dispatch.ts: the reply bus announces it as
 * `Tool Approval Expired`); each run writes its figures (pending, the oldest pending's age,
 * expired) as metrics.
 */
import { expiryAudit } from './approval-audit';
import { ownerFrom } from '../config';
import { logAudit, logMetrics, logWarning, writeLogLines } from '../log';
import { expiryMetrics, type MetricsTarget } from '../metrics/approvals';
import type { EventBridgeReplyPublisher } from '../reply-bus';
import { ResultDispatcher } from '../results/dispatch';
import { replyBusTarget } from '../results/reply-bus-target';
import type { ResultTarget } from '../results/targets';
import type { ApprovalStore } from '../stores/types';

export { expiredDetail } from '../results/reply-bus-target';

export interface ApprovalsExpirerOptions {
  readonly store: Pick<ApprovalStore, 'expireDue' | 'retryExpiry'>;
  /** Where `Tool Approval Expired` goes. @default - nowhere */
  readonly bus?: Pick<EventBridgeReplyPublisher, 'publishEvent'>;
  /** Other targets told of each expiry, after the bus. @default - none */
  readonly targets?: readonly ResultTarget[];
  /** Whose figures each run writes, in which namespace. @default - no metrics line */
  readonly metrics?: MetricsTarget;
}

export interface ExpiryOutcome {
  /** Approval ids this run marked expired. */
  readonly expired: string[];
  /** Approval ids an earlier run marked expired whose targets this run told again. */
  readonly retried: string[];
  /** Of both, the ones some target could not be told of (logged): the next run tells them again. */
  readonly unannounced: string[];
}

export function approvalsExpirer(options: ApprovalsExpirerOptions): () => Promise<ExpiryOutcome> {
  const results = new ResultDispatcher([...(options.bus ? [replyBusTarget(options.bus)] : []), ...(options.targets ?? [])]);
  return async () => {
    const run = await options.store.expireDue();
    if (options.metrics) logMetrics('approvals expirer run', {}, expiryMetrics(options.metrics, run));
    const unannounced: string[] = [];
    for (const record of run.expired) logAudit('approval expired', expiryAudit(record, options.metrics?.owner ?? ownerFrom()));
    // An expiry some target could not be told of (a waiting flow whose engine was unreachable) goes
    // back to the next run, which tells every target again: a flow is never left waiting for it.
    for (const record of [...run.expired, ...run.retried]) {
      if (await results.approvalExpired(record)) continue;
      unannounced.push(record.approvalId);
      await options.store.retryExpiry(record.approvalId).catch((error: unknown) =>
        logWarning('an expiry could not be handed to the next run; its targets stay untold', { approval_id: record.approvalId, error: String(error) }),
      );
    }
    writeLogLines();
    return { expired: run.expired.map((record) => record.approvalId), retried: run.retried.map((record) => record.approvalId), unannounced };
  };
}

/**
 * The expirer: run on a schedule, it marks undecided approvals past their expiry as `expired`
 * and announces each on the reply bus as `Tool Approval Expired`; each run writes its figures
 * (pending, the oldest pending's age, expired) as metrics.
 */
import { expiryAudit } from './approval-audit';
import { ownerFrom } from '../config';
import { logAudit, logMetrics, logWarning, writeLogLines } from '../log';
import { expiryMetrics, type MetricsTarget } from '../metrics/approvals';
import { APPROVAL_EXPIRED_DETAIL_TYPE, type ApprovalExpiredDetail, type EventBridgeReplyPublisher } from '../reply-bus';
import type { ApprovalRecord, ApprovalStore } from '../stores/types';

export interface ApprovalsExpirerOptions {
  readonly store: Pick<ApprovalStore, 'expireDue'>;
  /** Where `Tool Approval Expired` goes. @default - nowhere */
  readonly bus?: Pick<EventBridgeReplyPublisher, 'publishEvent'>;
  /** Whose figures each run writes, in which namespace. @default - no metrics line */
  readonly metrics?: MetricsTarget;
}

export interface ExpiryOutcome {
  /** Approval ids this run marked expired. */
  readonly expired: string[];
  /** Of those, the ones whose event could not be published (logged). */
  readonly unannounced: string[];
}

export function approvalsExpirer(options: ApprovalsExpirerOptions): () => Promise<ExpiryOutcome> {
  return async () => {
    const run = await options.store.expireDue();
    if (options.metrics) logMetrics('approvals expirer run', {}, expiryMetrics(options.metrics, run));
    const unannounced: string[] = [];
    for (const record of run.expired) {
      logAudit('approval expired', expiryAudit(record, options.metrics?.owner ?? ownerFrom()));
      if (!options.bus) continue;
      try {
        await options.bus.publishEvent(APPROVAL_EXPIRED_DETAIL_TYPE, { ...expiredDetail(record) });
      } catch (error) {
        unannounced.push(record.approvalId);
        logWarning('publishing Tool Approval Expired failed', { approval_id: record.approvalId, error: (error as Error).message });
      }
    }
    writeLogLines();
    return { expired: run.expired.map((record) => record.approvalId), unannounced };
  };
}

export function expiredDetail(record: ApprovalRecord): ApprovalExpiredDetail {
  return {
    approval_id: record.approvalId,
    tool: record.tool,
    run_id: record.runId,
    call_id: record.callId,
    expires_at: new Date(record.expiresAt).toISOString(),
  };
}

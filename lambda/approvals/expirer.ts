/**
 * The expirer: run on a schedule, it marks undecided approvals past their expiry as `expired`
 * and announces each on the reply bus as `Tool Approval Expired`.
 */
import { logWarning } from '../log';
import { APPROVAL_EXPIRED_DETAIL_TYPE, type ApprovalExpiredDetail, type EventBridgeReplyPublisher } from '../reply-bus';
import type { ApprovalRecord, ApprovalStore } from '../stores/types';

export interface ApprovalsExpirerOptions {
  readonly store: Pick<ApprovalStore, 'expireDue'>;
  /** Where `Tool Approval Expired` goes. @default - nowhere */
  readonly bus?: Pick<EventBridgeReplyPublisher, 'publishEvent'>;
}

export interface ExpiryOutcome {
  /** Approval ids this run marked expired. */
  readonly expired: string[];
  /** Of those, the ones whose event could not be published (logged). */
  readonly unannounced: string[];
}

export function approvalsExpirer(options: ApprovalsExpirerOptions): () => Promise<ExpiryOutcome> {
  return async () => {
    const marked = await options.store.expireDue();
    const unannounced: string[] = [];
    for (const record of marked) {
      if (!options.bus) continue;
      try {
        await options.bus.publishEvent(APPROVAL_EXPIRED_DETAIL_TYPE, JSON.stringify(expiredDetail(record)));
      } catch (error) {
        unannounced.push(record.approvalId);
        logWarning('publishing Tool Approval Expired failed', { approval_id: record.approvalId, error: (error as Error).message });
      }
    }
    return { expired: marked.map((record) => record.approvalId), unannounced };
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

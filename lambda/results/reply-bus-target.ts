/**
 * The reply bus as a target: every call's reply or error reply (sinks/reply-event.ts), and every
 * expired approval as `Tool Approval Expired`.
 */
import type { CallEnded } from '../delivery';
import { logWarning } from '../log';
import { APPROVAL_EXPIRED_DETAIL_TYPE, type ApprovalExpiredDetail, type EventBridgeReplyPublisher, type ReplyPublisher } from '../reply-bus';
import { replyEvent } from '../sinks/reply-event';
import type { ApprovalRecord } from '../stores/types';
import type { ResultTarget, TargetTook } from './targets';

/** What the reply bus target publishes through: replies (the handler), events (the expirer), or both. */
export type ReplyBusPublisher = Partial<ReplyPublisher> & Partial<Pick<EventBridgeReplyPublisher, 'publishEvent'>>;

export function replyBusTarget(bus: ReplyBusPublisher): ResultTarget {
  return {
    name: 'reply bus',
    async callEnded(ended: CallEnded): Promise<TargetTook> {
      if (!bus.publish) return { held: true };
      const { outcome } = ended;
      try {
        const { reply, extras } = replyEvent(ended);
        await bus.publish(reply, extras);
        return { held: true, carriedError: !outcome.ok };
      } catch (error) {
        logWarning('publishing the reply failed; the delivery will be retried', {
          run_id: outcome.identity.runId ?? null,
          call_id: outcome.identity.callId ?? null,
          error: (error as Error).message,
        });
        return { held: false };
      }
    },
    async approvalExpired(record: ApprovalRecord): Promise<boolean> {
      if (!bus.publishEvent) return true;
      try {
        await bus.publishEvent(APPROVAL_EXPIRED_DETAIL_TYPE, { ...expiredDetail(record) });
        return true;
      } catch (error) {
        logWarning('publishing Tool Approval Expired failed', { approval_id: record.approvalId, error: (error as Error).message });
        return false;
      }
    },
  };
}

/** The detail of `Tool Approval Expired` (the publisher adds `owner`). */
export function expiredDetail(record: ApprovalRecord): ApprovalExpiredDetail {
  return {
    approval_id: record.approvalId,
    tool: record.tool,
    run_id: record.runId,
    call_id: record.callId,
    expires_at: new Date(record.expiresAt).toISOString(),
  };
}

/**
 * The one place that decides where a result goes (targets.ts) and whether its delivery is done:
 * every target took it, and it is a reply, or an error that retrying cannot fix and that reached
 * whoever waits for the call (a denial is final and recorded in its approval, so it is done even
 * when no target carried it).
 */
import type { CallEnded } from '../delivery';
import { ApprovalDenied } from '../errors';
import { logWarning } from '../log';
import type { ApprovalRecord } from '../stores/types';
import type { ResultTarget } from './targets';

export class ResultDispatcher {
  constructor(readonly targets: readonly ResultTarget[]) {}

  /** Hands the call's end to every target; resolves whether the delivery is done (false: deliver it again). */
  async callEnded(ended: CallEnded): Promise<boolean> {
    const { outcome } = ended;
    if (ended.replyTo && !this.targets.some((target) => target.takesReplyTo)) {
      logWarning('the call names a reply_to, but this handler keeps no flows: nothing will complete it', {
        run_id: outcome.identity.runId ?? null,
        call_id: outcome.identity.callId ?? null,
      });
    }
    let held = true;
    let carriedError = false;
    for (const target of this.targets) {
      const took = await target.callEnded(ended);
      held &&= took.held;
      carriedError ||= took.carriedError === true;
    }
    if (outcome.ok) return held;
    if (outcome.error.retryable) return false;
    return held && (carriedError || outcome.error instanceof ApprovalDenied);
  }

  /** Tells every target of an expired approval; resolves false when one of them could not be told. */
  async approvalExpired(record: ApprovalRecord): Promise<boolean> {
    let told = true;
    for (const target of this.targets) {
      if (target.approvalExpired) told = (await target.approvalExpired(record)) && told;
    }
    return told;
  }
}

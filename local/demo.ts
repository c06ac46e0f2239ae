/**
 * `cdk-tool-handler local demo` (`npm run demo`): the sample's whole approval lifecycle through the
 * local run, step by step, each checked: a plain call, a call that needs approval, the pending list
 * and the decision through the approvals API (SigV4, as a named IAM principal), the automatic
 * resume and its `ok`, a second resume's `already_done`, a denial, an expiry; then the metrics the
 * run's functions emitted, per tool. Returns whether every step answered as expected.
 */
import { ApiError } from '../approvals-client/api-error';
import { APPROVAL_EXPIRED_DETAIL_TYPE } from '../lambda/reply-bus';
import type { LocalLine } from './print';
import { metricsTable, runMetrics } from './run-metrics';
import type { LocalRun } from './runtime';
import { decideInPage, launchChromium, signInThroughPage } from './inbox-page';
import { decide, localApprovalsClient, waitFor, waitForReply } from './scripting';

/** The engine's approval TTL for the expiry step (the demo restarts the engine with it). */
export const DEMO_EXPIRY_TTL_S = 2;

class StepFailed extends Error {}

export async function runDemo(run: LocalRun, print: (line: LocalLine) => void): Promise<boolean> {
  const say = (message: string) => print({ type: 'step', message });
  const started = Date.now();
  const client = localApprovalsClient(run);
  if (!client) {
    say('✗ the stack has no approvals API: the demo needs a ToolHandler whose tools require approval.');
    return false;
  }
  const { approver } = run;
  const steps = run.inboxUrl ? 9 : 8;
  let n = 0;
  const step = async <T>(title: string, body: () => Promise<T>): Promise<T> => {
    n += 1;
    say(`[${n}/${steps}] ${title}`);
    const value = await body();
    return value;
  };
  const ok = (message: string) => say(`  ✓ ${message}`);
  const expect = (condition: boolean, message: string): void => {
    if (!condition) throw new StepFailed(message);
  };

  /** The next reply (after line `from`) that `match` accepts, waiting up to `ms`. */
  const reply = (from: number, match: (r: any) => boolean, ms = 10_000): Promise<any> => waitForReply(run, from, match, ms);
  const event = async (from: number, detailType: string, approvalId: string, ms: number): Promise<any> =>
    waitFor(() => run.lines.slice(from).find((l) => l.type === 'event' && l.detail_type === detailType && l.detail?.approval_id === approvalId), ms);

  try {
    await step('a plain call: add 2 + 3, sent on the tool queue', async () => {
      const from = run.lines.length;
      await run.send([{ tool: 'add', args: { a: 2, b: 3 }, run_id: 'demo', call_id: 'add-1' }]);
      const r = await reply(from, (x) => x.tool === 'add');
      expect(r?.status === 'ok' && r.result === 5, `expected ok with result 5, got ${JSON.stringify(r)}`);
      ok('ok, result 5');
    });

    const requestRefund = async (orderId: string, callId: string): Promise<string> => {
      const from = run.lines.length;
      await run.send([{ tool: 'refund', args: { orderId }, run_id: 'demo', call_id: callId }]);
      const r = await reply(from, (x) => x.tool === 'refund');
      expect(r?.status === 'pending_approval' && typeof r.approval_id === 'string', `expected pending_approval, got ${JSON.stringify(r)}`);
      return r.approval_id as string;
    };

    const approved = await step('a call that needs approval: refund order o-100', async () => {
      const id = await requestRefund('o-100', 'refund-1');
      ok(`pending_approval ${id}`);
      return id;
    });

    await step('the pending approvals, through the approvals API (SigV4-signed)', async () => {
      const pending = await client.listAll({ status: 'pending', pageSize: 100 });
      for (const r of pending) say(`  pending: ${r.approval_id} ${r.tool} ${JSON.stringify(r.args)} (expires ${r.expires_at})`);
      expect(pending.some((r) => r.approval_id === approved), `expected ${approved} among the pending approvals`);
      ok(`${pending.length} pending, ${approved} among them`);
    });

    const resumed = await step(`approve it through the API as ${approver.userArn}`, async () => {
      const from = run.lines.length;
      const record = await decide(client, approved, true, 'checked the order');
      expect(record.status === 'approved', `expected approved, got ${record.status}`);
      expect(record.decided_by === approver.userArn, `expected decided_by ${approver.userArn}, got ${record.decided_by}`);
      ok(`approved, decided_by ${record.decided_by}`);
      return from;
    });

    await step('the automatic resume (the pipe puts {"approval_id"} on the queue) runs the refund', async () => {
      const r = await reply(resumed, (x) => x.approval_id === approved && x.status !== 'pending_approval');
      expect(r?.status === 'ok' && r.result?.refunded === 'o-100', `expected ok with {"refunded":"o-100"}, got ${JSON.stringify(r)}`);
      ok(`ok, result ${JSON.stringify(r.result)}`);
    });

    if (run.inboxUrl) {
      await step('a decision in the approvals inbox: refund o-150, approved in the page (headless Chromium)', async () => {
        const from = run.lines.length;
        await run.send([{ tool: 'refund', args: { orderId: 'o-150' }, run_id: 'demo', call_id: 'refund-inbox' }]);
        const pending = await reply(from, (x) => x.tool === 'refund');
        expect(typeof pending?.inbox_url === 'string', `expected a pending_approval with an inbox_url, got ${JSON.stringify(pending)}`);
        say(`  the reply links the approval's page: ${pending.inbox_url}`);
        const browser = await launchChromium();
        try {
          const page = await browser.newPage();
          await signInThroughPage(page, pending.inbox_url);
          const decidedAt = run.lines.length;
          const notice = await decideInPage(page, { approved: true });
          expect(/Approved/.test(notice), `expected the page to say Approved, got ${JSON.stringify(notice)}`);
          const r = await reply(decidedAt, (x) => x.approval_id === pending.approval_id && x.status !== 'pending_approval');
          expect(r?.status === 'ok' && r.result?.refunded === 'o-150', `expected ok with {"refunded":"o-150"}, got ${JSON.stringify(r)}`);
          const decision = run.lines.slice(decidedAt).find((l) => l.type === 'decision') as { decided_by?: string } | undefined;
          ok(`approved in the page by ${decision?.decided_by ?? 'the signed-in approver'}; the resume answered ok`);
        } finally {
          await browser.close();
        }
      });
    }

    await step('a second resume of the same approval', async () => {
      const from = run.lines.length;
      await run.send([{ approval_id: approved }]);
      const r = await reply(from, (x) => x.approval_id === approved);
      expect(r?.status === 'already_done', `expected already_done, got ${JSON.stringify(r)}`);
      ok('already_done: it ran once');
    });

    await step('a denied one: refund o-200, denied through the API', async () => {
      const id = await requestRefund('o-200', 'refund-2');
      const from = run.lines.length;
      const record = await decide(client, id, false, 'not this one');
      expect(record.status === 'denied', `expected denied, got ${record.status}`);
      const r = await reply(from, (x) => x.approval_id === id && x.status === 'error');
      expect(r?.error?.type === 'ApprovalDenied', `expected an ApprovalDenied reply on the reply bus, got ${JSON.stringify(r)}`);
      ok(`ApprovalDenied on the reply bus for ${id}`);
    });

    await step(`an expired one: refund o-300 with the engine's approval TTL at ${DEMO_EXPIRY_TTL_S} s`, async () => {
      await run.restart('engine', { TOOL_HANDLER_APPROVAL_TTL_S: String(DEMO_EXPIRY_TTL_S) });
      const from = run.lines.length;
      const id = await requestRefund('o-300', 'refund-3');
      say(`  waiting for ${id} to expire...`);
      if (run.hasExpirer) {
        const expired = await event(from, APPROVAL_EXPIRED_DETAIL_TYPE, id, (DEMO_EXPIRY_TTL_S + 8) * 1000);
        expect(expired !== undefined, `expected ${APPROVAL_EXPIRED_DETAIL_TYPE} on the reply bus for ${id}`);
        ok(`the expirer marked it expired and published ${APPROVAL_EXPIRED_DETAIL_TYPE}`);
      } else {
        say('  (the stack has no expirer: checking the status the API reports)');
      }
      const record = await waitFor(async () => {
        const r = await client.get(id);
        return r.status === 'expired' ? r : undefined;
      }, (DEMO_EXPIRY_TTL_S + 8) * 1000);
      expect(record !== undefined, `expected ${id} to be expired`);
      try {
        await client.decide(id, { approved: true, fingerprint: record!.fingerprint });
        throw new StepFailed('expected deciding an expired approval to be refused');
      } catch (error) {
        if (error instanceof StepFailed) throw error;
        expect(error instanceof ApiError && error.status === 409 && error.type === 'expired', `expected 409 expired, got ${String(error)}`);
      }
      ok('status expired; approving it now is refused (409 expired)');
    });
  } catch (error) {
    say(`✗ step ${n} failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
  say(`demo: all ${steps} steps answered as expected in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  say('metrics this run emitted (CloudWatch reads them from these log lines):');
  for (const row of metricsTable(runMetrics(run.lines))) say(row);
  return true;
}

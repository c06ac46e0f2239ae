/** What the scripted local runs (`local demo`, `local --calls`) share: waiting for a line, deciding as shown. */
import { ApprovalsClient } from '../approvals-client/client';
import { toEndpoint } from '../approvals-client/endpoint';
import type { ApprovalRecord } from '../approvals-client/record';
import type { LocalRun } from './runtime';

/** Polls `probe` every 50 ms until it gives a value, or `ms` pass (then `undefined`). */
export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The reply of the first reply line after line `from` that `match` accepts, waiting up to `ms`; `undefined` if none came. */
export async function waitForReply(run: LocalRun, from: number, match: (reply: any) => boolean, ms: number): Promise<any> {
  const found = await waitFor(() => run.lines.slice(from).find((l) => l.type === 'reply' && match(l.reply)) as any, ms);
  return found?.reply;
}

/** A client of the run's approvals API, signing as the run's named local approver; `undefined` when the stack has no API. */
export function localApprovalsClient(run: LocalRun): ApprovalsClient | undefined {
  return run.apiUrl ? new ApprovalsClient(toEndpoint(run.apiUrl, run.region), async () => run.approver) : undefined;
}

/** Reads the approval, then decides it on the fingerprint it read (as `approvals approve|deny` does). */
export async function decide(client: ApprovalsClient, id: string, approved: boolean, reason: string): Promise<ApprovalRecord> {
  const shown = await client.get(id);
  return client.decide(id, { approved, reason, fingerprint: shown.fingerprint });
}

/** What the scripted local runs (`local demo`, `local --calls`) share: waiting for a line, deciding as shown. */
import type { ApprovalsClient } from '../approvals-client/client';
import type { ApprovalRecord } from '../approvals-client/record';

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

/** Reads the approval, then decides it on the fingerprint it read (as `approvals approve|deny` does). */
export async function decide(client: ApprovalsClient, id: string, approved: boolean, reason: string): Promise<ApprovalRecord> {
  const shown = await client.get(id);
  return client.decide(id, { approved, reason, fingerprint: shown.fingerprint });
}

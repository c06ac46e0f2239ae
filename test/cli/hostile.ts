/** Shared by the CLI escaping tests (units and end to end). */
import type { ApprovalRecord } from '../../approvals-client/record';

/** What must never reach a terminal raw; line breaks of the CLI's own layout are checked apart. */
export const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** An approval made by someone who wants the approver to misread it. */
export const HOSTILE: ApprovalRecord = {
  approval_id: 'apr_\u009b31mX',
  tool: 'send_email\u200b\u2066',
  args: { 'to\u202e': 'bob\u001b[8m@evil\u0085\u200f', nested: ['\u{e0041}\u{e0042}', '\u2028'], '\u0007': 1 },
  run_id: 'run\u0085x',
  call_id: 'call\u061c',
  status: 'denied',
  fingerprint: 'fp\u2028x',
  created_at: 'soon\u001b[1A',
  expires_at: 'later\u007f',
  decided_by: 'arn:aws:iam::1:user/\u001b[2K\rmallory\nStatus:      approved',
  decided_at: '2026-12-02T16:00:00Z',
  reason: '\u001b[2J\u001b[31mAPPROVED\u202e',
};

/** Fails on any raw control or format character other than the layout's own newlines. */
export function expectSafe(text: string): void {
  const raw = [...text.replace(/\n/g, '')].filter((c) => UNSAFE.test(c)).map((c) => c.codePointAt(0)!.toString(16));
  expect(raw).toEqual([]);
}

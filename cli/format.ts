/** How approvals read on a terminal: a table for `list`, a block of details for one approval. */
import type { ApprovalRecord } from '../approvals-client/record';
import { escapeText, printableJson } from '../console/escape';

interface Column {
  readonly title: string;
  readonly max: number;
  readonly value: (r: ApprovalRecord) => string;
}

const COLUMNS: readonly Column[] = [
  { title: 'ID', max: 48, value: (r) => r.approval_id },
  { title: 'TOOL', max: 32, value: (r) => r.tool },
  { title: 'STATUS', max: 10, value: (r) => r.status },
  { title: 'ASKED BY', max: 32, value: (r) => requester(r) ?? '-' },
  { title: 'CREATED', max: 20, value: (r) => shortTime(r.created_at) },
  { title: 'EXPIRES', max: 20, value: (r) => shortTime(r.expires_at) },
];

/**
 * A plain-text table, one approval a line; cells longer than their column end in `…`. Cells are
 * escaped (console/escape.ts) before they are cut, so a cell stays on one line and the widths hold.
 */
export function formatTable(records: readonly ApprovalRecord[]): string {
  if (records.length === 0) return 'No approvals.\n';
  const rows = records.map((r) => COLUMNS.map((c) => truncate(escapeText(String(c.value(r) ?? '')), c.max)));
  const widths = COLUMNS.map((c, i) => Math.max(c.title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const count = `${records.length} approval${records.length === 1 ? '' : 's'}.`;
  return [line(COLUMNS.map((c) => c.title)), ...rows.map(line), count].join('\n') + '\n';
}

/** Everything an approver needs to decide: tool, args (pretty JSON), ids, status, times; all escaped. */
export function formatDetails(r: ApprovalRecord): string {
  const rows: Array<[string, string | undefined]> = [
    ['Approval', r.approval_id],
    ['Tool', r.tool],
    ['Status', r.status],
    ['Run', r.run_id],
    ['Call', r.call_id],
    ['Asked by', requester(r) ?? 'no caller (the call proved none)'],
    ['Created', r.created_at],
    ['Expires', r.expires_at],
    ['Decided by', r.decided_by],
    ['Decided at', r.decided_at],
    ['Reason', r.reason],
    ['Fingerprint', r.fingerprint],
  ];
  const lines = rows.filter(([, v]) => v !== undefined).map(([k, v]) => `${`${k}:`.padEnd(13)}${escapeText(v)}`);
  const args = printableJson(r.args ?? null, 2)
    .split('\n')
    .map((l) => `  ${l}`);
  return [...lines, 'Args:', ...args].join('\n') + '\n';
}

/**
 * Who asked, in a line: the caller's id, `(unverified)` when nothing checked it, and the claims the
 * construct names for display (`email=ana@example.com`).
 */
export function requester(r: ApprovalRecord): string | undefined {
  const by = r.requested_by;
  if (!by) return undefined;
  const claims = Object.entries(by.claims ?? {}).map(([name, value]) => `${name}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  return [by.id, ...(by.verified ? [] : ['(unverified)']), ...(claims.length ? [`(${claims.join(', ')})`] : [])].join(' ');
}

/** `2026-12-02T15:44:59.123Z` → `2026-12-02 15:44:59Z`; anything else as given. */
export function shortTime(iso: string | undefined): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

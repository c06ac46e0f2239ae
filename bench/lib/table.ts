/** The readable table `npm run bench` prints. */

export interface Row {
  readonly figure: string;
  readonly ours: string;
  readonly baseline: string;
  readonly ratio: string;
  /** The target, and whether this run met it (informational: nothing asserts speed). */
  readonly target?: string;
  readonly met?: boolean;
  readonly heading?: boolean;
}

/** A heading row: printed on its own line, not counted in the column widths. */
export function section(title: string): Row {
  return { figure: `— ${title}`, ours: '', baseline: '', ratio: '', heading: true };
}

export function formatTable(rows: readonly Row[]): string {
  const header: Row = { figure: 'figure', ours: 'this library', baseline: 'baseline', ratio: 'ratio', target: 'target' };
  const cells = (r: Row) => [r.figure, r.ours, r.baseline, r.ratio, r.target ? `${r.target}${r.met === undefined ? '' : r.met ? '  met' : '  MISSED'}` : ''];
  const measured = [header, ...rows.filter((r) => !r.heading)].map(cells);
  const widths = measured[0].map((_, i) => Math.max(...measured.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((text, i) => (i === 0 ? text.padEnd(widths[i]) : text.padStart(widths[i]))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells(header)), rule, ...rows.map((r) => (r.heading ? r.figure : line(cells(r))))].join('\n');
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const perSecond = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;
export const x = (value: number) => `${value.toFixed(2)}x`;
export const num = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

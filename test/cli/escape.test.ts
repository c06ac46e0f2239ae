/**
 * Output hygiene: the CLI escapes C0/C1 control and format (`\p{Cf}`) characters in every field it
 * prints, so a record cannot repaint the terminal, hide text or reorder what an approver reads.
 */
import { escapeJson, escapeText } from '../../console/escape';
import { formatDetails, formatTable } from '../../cli/format';
import type { ApprovalRecord } from '../../approvals-client/record';
import { expectSafe, HOSTILE } from './hostile';

describe('escapeText', () => {
  test.each([
    ['ESC', '\u001b[31m', '\\x1b[31m'],
    ['NUL and BEL', 'a\u0000b\u0007', 'a\\x00b\\x07'],
    ['newline, return and tab', 'a\nb\rc\td', 'a\\nb\\rc\\td'],
    ['DEL and C1 (CSI, NEL)', '\u007f\u009b\u0085', '\\x7f\\x9b\\x85'],
    ['bidi overrides and isolates', '\u202eevil\u2066\u2069', '\\u{202e}evil\\u{2066}\\u{2069}'],
    ['zero-width space and joiner, BOM', '\u200b\u200d\ufeff', '\\u{200b}\\u{200d}\\u{feff}'],
    ['tag characters (outside the BMP)', '\u{e0041}\u{e007f}', '\\u{e0041}\\u{e007f}'],
    ['line and paragraph separators', '\u2028\u2029', '\\u{2028}\\u{2029}'],
  ])('%s', (_name, text, expected) => {
    expect(escapeText(text)).toBe(expected);
  });

  test('leaves ordinary text alone, whatever its script', () => {
    const text = 'arn:aws:iam::1:user/a — déjà vu 日本語 🙂 C:\\path "quoted"';
    expect(escapeText(text)).toBe(text);
  });
});

describe('escapeJson', () => {
  test('keeps the layout and the value, and leaves nothing raw', () => {
    const json = JSON.stringify(HOSTILE.args, null, 2);
    const escaped = escapeJson(json);
    expect(JSON.parse(escaped)).toEqual(HOSTILE.args);
    expect(escaped.split('\n').length).toBe(json.split('\n').length);
    expectSafe(escaped);
    expect(escaped).toContain('"to\\u202e": "bob\\u001b[8m@evil\\u0085\\u200f"');
    expect(escaped).toContain('"\\udb40\\udc41\\udb40\\udc42"');
  });
});

describe('a hostile record', () => {
  test('the table shows every control and format character escaped', () => {
    const table = formatTable([HOSTILE, { ...HOSTILE, status: 'ok\u001b[0m' as ApprovalRecord['status'] }]);
    expectSafe(table);
    expect(table.split('\n')).toHaveLength(5); // header, two rows, count, end
    expect(table).toContain('apr_\\x9b31mX');
    expect(table).toContain('send_email\\u{200b}\\u{2066}');
    expect(table).toContain('ok\\x1b[0m');
    expect(table).toContain('soon\\x1b[1A');
  });

  test('the details show every field escaped, and args as JSON whose strings are escaped', () => {
    const details = formatDetails(HOSTILE);
    expectSafe(details);
    expect(details).toContain('Reason:      \\x1b[2J\\x1b[31mAPPROVED\\u{202e}\n');
    expect(details).toContain('Decided by:  arn:aws:iam::1:user/\\x1b[2K\\rmallory\\nStatus:      approved\n');
    expect(details).toContain('Run:         run\\x85x\n');
    expect(details).toContain('Call:        call\\u{61c}\n');
    expect(details).toContain('Fingerprint: fp\\u{2028}x\n');
    expect(details).toContain('Expires:     later\\x7f\n');
    expect(details).toContain('    "to\\u202e": "bob\\u001b[8m@evil\\u0085\\u200f",\n');
    expect(details.split('\n').filter((line) => line.startsWith('Status:'))).toEqual(['Status:      denied']);
  });
});

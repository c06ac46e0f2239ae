/**
 * What the CLI (and `local`) prints of a record or of a server's answer goes through here: C0 and C1
 * controls (with DEL), format characters (`\p{Cf}`: bidi overrides, zero-width, tags) and the line
 * and paragraph separators could repaint the terminal or reorder and hide text, so an approver would
 * read something else than what runs. They are written visibly instead, so the approver sees them.
 */

const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
/** The same, but a newline stays: JSON.stringify's own layout. */
const UNSAFE_BUT_NEWLINE = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` on one line, each unsafe character as `\n`, `\x1b` or `\u{202e}`. Takes anything (as
 * `String` shows it): a server may send a number where the CLI expects a string.
 */
export function escapeText(text: unknown): string {
  return String(text).replace(UNSAFE, (c) => {
    const code = c.codePointAt(0)!;
    return NAMED[c] ?? (code <= 0xff ? `\\x${hex(code, 2)}` : `\\u{${code.toString(16)}}`);
  });
}

/** Like `escapeText`, but the line breaks stay: for messages the CLI lays out on several lines. */
export function escapeLines(text: string): string {
  return text.split('\n').map(escapeText).join('\n');
}

/**
 * JSON text (of JSON.stringify, which escapes C0 controls in strings but not DEL, C1 or format
 * characters) with every unsafe character as a `\uXXXX` escape: still valid JSON of the same value.
 * Outside strings JSON.stringify writes only newlines and spaces, so whatever is matched is in a string.
 */
export function escapeJson(json: string): string {
  // split(''): by UTF-16 unit, so a character outside the BMP becomes its surrogate pair.
  return json.replace(UNSAFE_BUT_NEWLINE, (c) => c.split('').map((unit) => `\\u${hex(unit.charCodeAt(0), 4)}`).join(''));
}

/** `JSON.stringify(value, null, indent)`, safe to print. */
export function printableJson(value: unknown, indent?: number): string {
  return escapeJson(JSON.stringify(value, null, indent));
}

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

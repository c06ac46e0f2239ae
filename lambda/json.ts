/** JSON helpers shared by the envelope and the replies. */

export type JsonObject = Record<string, unknown>;

/** A plain JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether `value` nests deeper than `maxDepth` levels (the value itself is level 1; every object or
 * array adds one). Iterative, so a hostile payload cannot overflow the stack.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxDepth) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** JSON with object keys sorted, so that equal data always gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, node: unknown) => {
    if (!isJsonObject(node)) return node;
    const sorted: JsonObject = {};
    for (const key of Object.keys(node).sort()) {
      Object.defineProperty(sorted, key, { value: node[key], enumerable: true, writable: true, configurable: true });
    }
    return sorted;
  });
}

/** Number of Unicode code points in `text` (what the envelope's length limits count). */
export function codePointLength(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return text.length - surrogatePairs;
}

const END_OF_INPUT = 'Unexpected end of JSON input';

/**
 * Where `JSON.parse(text)` fails, as a 0-based offset in UTF-16 units (as V8 counts): `text.length`
 * when the text ends too early; `undefined` when it parses. Reports only a number because V8's own
 * message quotes the start of the input, which may be a secret.
 */
export function jsonErrorPosition(text: string): number | undefined {
  const message = parseFailure(text);
  if (message === undefined) return undefined;
  const named = namedPosition(message);
  if (named !== undefined) return named;
  if (message.includes(END_OF_INPUT)) return text.length;
  return longestJsonPrefix(text); // "Unexpected token …" names no position
}

/**
 * The length of the longest prefix of `text` that can still begin a JSON text: the offset of the
 * first character that cannot belong. Binary search, as every prefix of such a prefix can too.
 */
export function longestJsonPrefix(text: string): number {
  let good = 0; // the empty prefix always can
  let bad = text.length + 1;
  while (bad - good > 1) {
    const middle = (good + bad) >>> 1;
    if (beginsJson(text.slice(0, middle))) good = middle;
    else bad = middle;
  }
  return good;
}

/** Whether `prefix` parses or fails only because it ends (at its own length). */
function beginsJson(prefix: string): boolean {
  const message = parseFailure(prefix);
  return message === undefined || message.includes(END_OF_INPUT) || namedPosition(message) === prefix.length;
}

/** V8's message for `JSON.parse(text)`, or `undefined` when it parses. */
function parseFailure(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function namedPosition(message: string): number | undefined {
  const match = /position (\d+)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

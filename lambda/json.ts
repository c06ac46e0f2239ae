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

/**
 * `value` as JSON would carry it (`undefined` becomes `null`). Throws a TypeError for what JSON
 * cannot hold: BigInt, cycles, a bare function or symbol.
 */
export function jsonRoundTrip(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`a ${typeof value} is not JSON`);
  return JSON.parse(text);
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

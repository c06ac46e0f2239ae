/**
 * EventBridge (and Pipes) content filtering, for the operators the construct's patterns use, as AWS
 * documents them ("Content filtering in Amazon EventBridge event patterns"): a pattern is an object
 * whose leaves are arrays; an event matches when every field of the pattern matches. A leaf array
 * matches when the event's value (or any element of an array value) equals one of its strings, or
 * satisfies one of its operator objects: `{ prefix }`, `{ exists: true | false }`. `exists` applies to
 * leaf values only: `{ exists: false }` matches a field that is absent. Any other operator throws,
 * so a pattern this does not understand cannot pass unexamined.
 */
export function matchesPattern(pattern: Record<string, unknown>, event: unknown): boolean {
  return Object.entries(pattern).every(([key, expected]) => {
    const value = isObject(event) ? event[key] : undefined;
    if (Array.isArray(expected)) return matchesLeaf(expected, value);
    if (isObject(expected)) return matchesPattern(expected, isObject(value) ? value : undefined);
    throw new Error(`pattern field ${key} must be an array or an object, got: ${JSON.stringify(expected)}`);
  });
}

function matchesLeaf(alternatives: unknown[], value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  return alternatives.some((alternative) => {
    if (typeof alternative === 'string' || typeof alternative === 'number' || alternative === null) {
      return values.some((v) => v === alternative);
    }
    if (isObject(alternative)) {
      const [operator, operand] = Object.entries(alternative)[0] ?? [];
      switch (operator) {
        case 'prefix':
          return values.some((v) => typeof v === 'string' && v.startsWith(String(operand)));
        case 'exists':
          return operand === true ? value !== undefined && !isObject(value) : value === undefined;
        default:
          throw new Error(`operator ${operator} is not modelled`);
      }
    }
    throw new Error(`unexpected pattern value ${JSON.stringify(alternative)}`);
  });
}

/** Renders a Pipes input template: each `<$.json.path>` becomes the value at that path. */
export function renderInputTemplate(template: string, event: unknown): string {
  return template.replace(/<\$\.([^>]+)>/g, (_, path: string) => {
    const value = path.split('.').reduce<unknown>((at, key) => (isObject(at) ? at[key] : undefined), event);
    if (typeof value !== 'string') throw new Error(`input template path $.${path} is not a string in the event`);
    return value;
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * EventBridge's event patterns (EventBridge Pipes' filters use the same syntax), as AWS documents
 * them ("Amazon EventBridge event patterns", "Content filtering in Amazon EventBridge event
 * patterns"), for what this package's patterns use:
 * - a pattern is an object; the event matches when every field of it matches (objects nest);
 * - a field's value is a list of alternatives, and matches when any alternative matches any of the
 *   event's leaf values there (a scalar, or each scalar of an array: "the intersection is not empty");
 * - an alternative is an exact value (string, number, `true`, `false`, `null`), `{ "prefix": "s" }`
 *   (strings only), `{ "exists": true | false }` (whether the field has a leaf value: an object there
 *   is not one, so `exists: false` matches it), `{ "anything-but": value | [values] }` (strings or
 *   numbers; a field without a value never matches it), or `{ "anything-but": { "prefix": "s" } }` (a
 *   string value that does not begin with `s`);
 * - under a nested pattern, an array of objects matches when one of its objects matches the whole
 *   nested pattern (fields of different elements never combine).
 *
 * Everything else is refused, not answered: compiling a pattern that uses another operator
 * (`numeric`, `suffix`, `wildcard`, `equals-ignore-case`, `cidr`, `$or`, `anything-but` of a
 * `suffix`...) or that is malformed throws an `EventPatternError` naming it and where it stands, so
 * that a pattern this cannot evaluate never quietly answers "no match".
 */

/** A pattern this matcher cannot evaluate: an operator it does not implement, or a malformed pattern. */
export class EventPatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventPatternError';
  }
}

/** Whether an event matches the pattern it was compiled from. */
export type EventMatcher = (event: unknown) => boolean;

/** Whether `event` matches `pattern`; throws `EventPatternError` for a pattern it cannot evaluate. */
export function matchesPattern(pattern: unknown, event: unknown): boolean {
  return compileEventPattern(pattern)(event);
}

/** The whole pattern checked now (every operator, reached or not), and its matcher. */
export function compileEventPattern(pattern: unknown): EventMatcher {
  if (!isObject(pattern)) throw new EventPatternError(`An event pattern is a JSON object, got: ${JSON.stringify(pattern)}.`);
  return compileObject(pattern, '');
}

const IMPLEMENTED = 'exact values, prefix, exists, and anything-but of values or of a prefix';

type Scalar = string | number | boolean | null;
/** A test of one field's leaf values. */
type LeafTest = (values: readonly Scalar[]) => boolean;

function compileObject(pattern: Record<string, unknown>, path: string): EventMatcher {
  const fields = Object.entries(pattern).map(([key, sub]) => {
    const at = path ? `${path}.${key}` : key;
    if (key === '$or') throw notImplemented('$or', at);
    const match = compileField(sub, at);
    return (object: Record<string, unknown> | undefined) => match(object?.[key]);
  });
  const matchesObject = (object: Record<string, unknown> | undefined) => fields.every((field) => field(object));
  return (value) => {
    const objects = flatten(value).filter(isObject);
    return objects.length === 0 ? matchesObject(undefined) : objects.some(matchesObject);
  };
}

function compileField(sub: unknown, at: string): EventMatcher {
  if (Array.isArray(sub)) return compileLeaf(sub, at);
  if (isObject(sub)) return compileObject(sub, at);
  throw new EventPatternError(`The event pattern's field ${at} must be a list of values or an object, got: ${JSON.stringify(sub)}.`);
}

function compileLeaf(alternatives: readonly unknown[], at: string): EventMatcher {
  if (alternatives.length === 0) throw new EventPatternError(`The event pattern's field ${at} is an empty list (EventBridge refuses it).`);
  const tests = alternatives.map((alternative) => compileAlternative(alternative, at));
  return (value) => {
    const values = flatten(value).filter(isScalar);
    return tests.some((test) => test(values));
  };
}

function compileAlternative(alternative: unknown, at: string): LeafTest {
  if (isScalar(alternative)) return (values) => values.includes(alternative);
  if (!isObject(alternative)) throw new EventPatternError(`The event pattern's field ${at} lists ${JSON.stringify(alternative)}: not a value nor an operator.`);
  const entries = Object.entries(alternative);
  if (entries.length !== 1) {
    throw new EventPatternError(`The event pattern's field ${at} lists ${JSON.stringify(alternative)}: an operator is an object of one key.`);
  }
  const [[operator, operand]] = entries;
  switch (operator) {
    case 'prefix': {
      if (isObject(operand)) throw notImplemented(`prefix with ${Object.keys(operand).join(', ')}`, at);
      if (typeof operand !== 'string') throw malformed(operator, operand, 'a string', at);
      return (values) => values.some((v) => typeof v === 'string' && v.startsWith(operand));
    }
    case 'exists': {
      if (typeof operand !== 'boolean') throw malformed(operator, operand, 'true or false', at);
      return (values) => (values.length > 0) === operand;
    }
    case 'anything-but': {
      if (isObject(operand)) return anythingButPrefix(operand, at);
      const excluded = Array.isArray(operand) ? operand : [operand];
      const allOf = (type: 'string' | 'number') => excluded.every((v) => typeof v === type);
      if (excluded.length === 0 || !(allOf('string') || allOf('number'))) {
        throw malformed(operator, operand, 'a string, a number, or a list of only strings or only numbers', at);
      }
      return (values) => values.some((v) => !excluded.includes(v));
    }
    default:
      throw notImplemented(operator, at);
  }
}

/** `{ "anything-but": { "prefix": "s" } }`: a string value that does not begin with `s`. */
function anythingButPrefix(operand: Record<string, unknown>, at: string): LeafTest {
  const keys = Object.keys(operand);
  if (keys.length !== 1 || keys[0] !== 'prefix') throw notImplemented(`anything-but with ${keys.join(', ')}`, at);
  const prefix = operand.prefix;
  if (typeof prefix !== 'string') throw malformed('anything-but', operand, '{ "prefix": a string }', at);
  return (values) => values.some((v) => typeof v === 'string' && !v.startsWith(prefix));
}

function notImplemented(operator: string, at: string): EventPatternError {
  return new EventPatternError(
    `The event pattern operator "${operator}" (at ${at}) is not implemented by this stand-in for EventBridge; it implements ${IMPLEMENTED}.`,
  );
}

function malformed(operator: string, operand: unknown, expected: string, at: string): EventPatternError {
  return new EventPatternError(`The event pattern operator "${operator}" (at ${at}) takes ${expected}, got: ${JSON.stringify(operand)}.`);
}

/** The value, or the elements of an array, arrays within arrays included. */
function flatten(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.flatMap(flatten) : [value];
}

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * CloudWatch Logs filter patterns for JSON log events, evaluated as AWS's "Filter pattern syntax for
 * metric filters, subscription filters, filter log events" describes them, so that a test can ask
 * whether a subscription filter or a `FilterLogEvents` call would select a line:
 *
 * - `{ SELECTOR OPERATOR VALUE }`, the whole pattern in braces. A selector starts at the root `$`;
 *   each level is `.name` (letters, digits, `_` and `-`) or `[N]` (an array element).
 * - String values, quoted or not (unquoted: letters and digits, `.`, `_`, `-`), with `=` or `!=`;
 *   `*` at the start or end matches any text there (`*Event`, `Event*`), elsewhere it is itself.
 * - Numbers (an optional sign, a decimal, an exponent) with `=`, `!=`, `<`, `>`, `<=`, `>=`.
 * - `IS NULL`, `NOT EXISTS`, `IS TRUE`, `IS FALSE`.
 * - `&&` and `||`, `&&` binding tighter, and parentheses.
 * - The selector must reach a value: an object or an array there, or nothing at all, matches no
 *   comparison, `=` or `!=` ("the filter will not be applied").
 * - A line that is not a JSON object matches no JSON pattern; the empty pattern matches every line.
 *
 * Other kinds of pattern (terms, space-delimited, regular expressions) are refused, not guessed.
 */

type Path = ReadonlyArray<string | number>;
type Literal = { readonly kind: 'string'; readonly text: string } | { readonly kind: 'number'; readonly value: number };
type Expr =
  | { readonly op: '&&' | '||'; readonly left: Expr; readonly right: Expr }
  | { readonly op: 'compare'; readonly path: Path; readonly comparison: string; readonly literal: Literal }
  | { readonly op: 'is'; readonly path: Path; readonly test: 'null' | 'true' | 'false' | 'not-exists' };

export class FilterPatternError extends Error {}

/** Whether `pattern` selects the log event `message`. */
export function matchesFilterPattern(pattern: string, message: string): boolean {
  const text = pattern.trim();
  if (text === '') return true;
  const expr = parseFilterPattern(text);
  let event: unknown;
  try {
    event = JSON.parse(message);
  } catch {
    return false;
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return false;
  return evaluate(expr, event);
}

export function parseFilterPattern(pattern: string): Expr {
  const text = pattern.trim();
  if (!text.startsWith('{') || !text.endsWith('}')) throw new FilterPatternError('only JSON filter patterns ({ ... }) are supported here');
  const parser = new Parser(text.slice(1, -1));
  const expr = parser.orExpr();
  parser.end();
  return expr;
}

const COMPARISONS = ['<=', '>=', '!=', '=', '<', '>'];

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  orExpr(): Expr {
    let left = this.andExpr();
    while (this.take('||')) left = { op: '||', left, right: this.andExpr() };
    return left;
  }

  end(): void {
    this.space();
    if (this.at < this.text.length) throw new FilterPatternError(`unexpected ${JSON.stringify(this.text.slice(this.at))}`);
  }

  private andExpr(): Expr {
    let left = this.term();
    while (this.take('&&')) left = { op: '&&', left, right: this.term() };
    return left;
  }

  private term(): Expr {
    if (this.take('(')) {
      const inner = this.orExpr();
      if (!this.take(')')) throw new FilterPatternError('a parenthesis is not closed');
      return inner;
    }
    const path = this.selector();
    for (const [words, test] of [
      [['IS', 'NULL'], 'null'],
      [['IS', 'TRUE'], 'true'],
      [['IS', 'FALSE'], 'false'],
      [['NOT', 'EXISTS'], 'not-exists'],
    ] as const) {
      const save = this.at;
      if (words.every((word) => this.takeWord(word))) return { op: 'is', path, test };
      this.at = save;
    }
    const comparison = COMPARISONS.find((c) => this.take(c));
    if (!comparison) throw new FilterPatternError(`expected a comparison after the selector at ${this.at}`);
    const literal = this.literal();
    if (literal.kind === 'string' && comparison !== '=' && comparison !== '!=') throw new FilterPatternError(`${comparison} compares numbers only`);
    return { op: 'compare', path, comparison, literal };
  }

  private selector(): Path {
    this.space();
    if (this.text[this.at] !== '$') throw new FilterPatternError(`a selector starts with $ (at ${this.at})`);
    this.at += 1;
    const path: Array<string | number> = [];
    for (;;) {
      const rest = this.text.slice(this.at);
      const name = /^\.([A-Za-z0-9_-]+)/.exec(rest);
      const index = /^\[(\d+)\]/.exec(rest);
      if (name) {
        path.push(name[1]);
        this.at += name[0].length;
      } else if (index && path.length > 0) {
        path.push(Number(index[1]));
        this.at += index[0].length;
      } else {
        break;
      }
    }
    if (path.length === 0) throw new FilterPatternError('a selector names at least one property ($.name)');
    return path;
  }

  private literal(): Literal {
    this.space();
    const rest = this.text.slice(this.at);
    const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (quoted) {
      this.at += quoted[0].length;
      return { kind: 'string', text: quoted[1].replace(/\\(.)/g, '$1') };
    }
    const number = /^[+-]?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?(?![A-Za-z0-9_.*-])/.exec(rest);
    if (number) {
      this.at += number[0].length;
      return { kind: 'number', value: Number(number[0]) };
    }
    const bare = /^[A-Za-z0-9_.*-]+/.exec(rest);
    if (bare) {
      this.at += bare[0].length;
      return { kind: 'string', text: bare[0] };
    }
    throw new FilterPatternError(`expected a value at ${this.at}`);
  }

  private take(token: string): boolean {
    this.space();
    if (!this.text.startsWith(token, this.at)) return false;
    this.at += token.length;
    return true;
  }

  private takeWord(word: string): boolean {
    this.space();
    const found = new RegExp(`^${word}(?![A-Za-z0-9_])`).exec(this.text.slice(this.at));
    if (!found) return false;
    this.at += word.length;
    return true;
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? '')) this.at += 1;
  }
}

const MISSING = Symbol('missing');

function lookup(event: unknown, path: Path): unknown {
  let node: unknown = event;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(node) || step >= node.length) return MISSING;
      node = node[step];
    } else {
      if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.prototype.hasOwnProperty.call(node, step)) return MISSING;
      node = (node as Record<string, unknown>)[step];
    }
  }
  return node;
}

function evaluate(expr: Expr, event: unknown): boolean {
  switch (expr.op) {
    case '&&':
      return evaluate(expr.left, event) && evaluate(expr.right, event);
    case '||':
      return evaluate(expr.left, event) || evaluate(expr.right, event);
    case 'is': {
      const value = lookup(event, expr.path);
      if (expr.test === 'not-exists') return value === MISSING;
      if (expr.test === 'null') return value === null;
      return value === (expr.test === 'true');
    }
    case 'compare': {
      const value = lookup(event, expr.path);
      if (value === MISSING || value === null || typeof value === 'object') return false;
      const equal = expr.comparison === '=' ? true : expr.comparison === '!=' ? false : undefined;
      if (expr.literal.kind === 'string') {
        if (typeof value !== 'string') return false;
        return matchesString(expr.literal.text, value) === equal;
      }
      if (typeof value !== 'number') return false;
      const n = expr.literal.value;
      switch (expr.comparison) {
        case '=':
          return value === n;
        case '!=':
          return value !== n;
        case '<':
          return value < n;
        case '>':
          return value > n;
        case '<=':
          return value <= n;
        default:
          return value >= n;
      }
    }
  }
}

/** A string value against a pattern value: `*` at its start or end matches any text there. */
function matchesString(pattern: string, value: string): boolean {
  const leading = pattern.length > 1 && pattern.startsWith('*');
  const trailing = pattern.length > 1 && pattern.endsWith('*');
  if (pattern === '*') return true;
  const core = pattern.slice(leading ? 1 : 0, trailing ? -1 : undefined);
  if (leading && trailing) return value.includes(core);
  if (leading) return value.endsWith(core);
  if (trailing) return value.startsWith(core);
  return value === core;
}

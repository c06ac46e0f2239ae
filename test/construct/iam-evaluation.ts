/**
 * How IAM evaluates a set of policy statements for one request, for the statements this construct
 * writes, shared by the models of each service (dynamodb-iam.ts, lambda-iam.ts, events-iam.ts,
 * queue-iam.ts): an explicit Deny wins, then any Allow, else the request is denied by default
 * (IAM User Guide, "Policy evaluation logic"; one account, so an Allow in the identity's policy or
 * in the resource's policy is enough).
 *
 * Conditions follow "IAM JSON policy elements: Condition operators": every operator of a block and
 * every key of an operator must hold; several values for one key hold when any does; a negated
 * operator (`StringNotEquals`, `ArnNotEquals`, ...) holds for a key missing from the request; the
 * `ForAnyValue:` / `ForAllValues:` qualifiers compare each of a multi-valued key's values
 * (`ForAllValues:` holds for a missing key, `ForAnyValue:` does not); `...IfExists` holds when the key
 * is missing; `Null` tests whether the key is missing. A policy variable (`${aws:PrincipalTag/x}`) in
 * a value is replaced by the request's value of that key; one the request has no value for makes the
 * statement invalid for the request ("IAM policy elements: Variables and tags"), so it does not apply.
 * An operator or key the model does not know makes it throw, so a policy change cannot pass unexamined.
 */

export type Decision = 'allowed' | 'denied by default' | 'explicitly denied';

/** The request's value(s) of a condition key; `undefined` when the request does not have the key. Throws for a key a model does not know. */
export type ContextLookup = (key: string) => readonly string[] | undefined;

/** Decides the request for the statements that apply to it (action, resource and principal already matched). */
export function decide(statements: readonly any[], conditionsOf: (statement: any) => boolean): Decision {
  const matching = statements.filter(conditionsOf);
  if (matching.some((s) => s.Effect === 'Deny')) return 'explicitly denied';
  if (matching.some((s) => s.Effect === 'Allow')) return 'allowed';
  return 'denied by default';
}

/** IAM's `*` and `?` wildcards (actions, resources, `...Like` values); case-sensitive, as for ARNs. */
export function wildcard(pattern: string, value: string): boolean {
  return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's').test(value);
}

/** Whether `Action` (or `NotAction`) of the statement covers `action`. */
export function coversAction(statement: any, action: string): boolean {
  if (statement.NotAction !== undefined) return !([] as string[]).concat(statement.NotAction).some((a) => wildcard(a, action));
  return ([] as string[]).concat(statement.Action ?? []).some((a) => wildcard(a, action));
}

class UnresolvedVariable extends Error {}

/** Whether every condition of `conditions` holds for the request whose keys `lookup` gives. */
export function conditionsHold(conditions: Record<string, Record<string, unknown>> | undefined, lookup: ContextLookup): boolean {
  try {
    return Object.entries(conditions ?? {}).every(([operator, keys]) =>
      Object.entries(keys).every(([key, expected]) =>
        holds(operator, lookup(key), ([] as unknown[]).concat(expected).map((value) => substitute(String(value), lookup))),
      ),
    );
  } catch (error) {
    if (error instanceof UnresolvedVariable) return false;
    throw error;
  }
}

/** `${key}` variables replaced by the request's (single) value of that key. */
function substitute(value: string, lookup: ContextLookup): string {
  return value.replace(/\$\{([^}]+)\}/g, (_, key: string) => {
    const values = lookup(key);
    if (values === undefined || values.length !== 1) throw new UnresolvedVariable(key);
    return values[0];
  });
}

type Compare = (actual: string, expected: string) => boolean;

const COMPARISONS: Record<string, { compare: Compare; negated: boolean }> = {
  StringEquals: { compare: (a, e) => a === e, negated: false },
  StringNotEquals: { compare: (a, e) => a === e, negated: true },
  StringLike: { compare: (a, e) => wildcard(e, a), negated: false },
  StringNotLike: { compare: (a, e) => wildcard(e, a), negated: true },
  ArnEquals: { compare: (a, e) => wildcard(e, a), negated: false },
  ArnLike: { compare: (a, e) => wildcard(e, a), negated: false },
  ArnNotEquals: { compare: (a, e) => wildcard(e, a), negated: true },
  ArnNotLike: { compare: (a, e) => wildcard(e, a), negated: true },
  Bool: { compare: (a, e) => a.toLowerCase() === e.toLowerCase(), negated: false },
};

function holds(operator: string, actual: readonly string[] | undefined, expected: string[]): boolean {
  if (operator === 'Null') return expected.every((e) => (e === 'true') === (actual === undefined));
  const [qualifier, base] = operator.includes(':') ? operator.split(':') : [undefined, operator];
  const ifExists = base.endsWith('IfExists');
  const comparison = COMPARISONS[ifExists ? base.slice(0, -'IfExists'.length) : base];
  if (!comparison || (qualifier !== undefined && qualifier !== 'ForAnyValue' && qualifier !== 'ForAllValues')) {
    throw new Error(`the model does not know the condition operator ${operator}`);
  }
  const { compare, negated } = comparison;
  if (actual === undefined) {
    if (qualifier === 'ForAllValues') return true;
    if (qualifier === 'ForAnyValue') return false;
    return ifExists || negated;
  }
  // A negated operator holds for a value that matches none of the expected ones.
  const one = (value: string) => (negated ? !expected.some((e) => compare(value, e)) : expected.some((e) => compare(value, e)));
  if (qualifier === 'ForAllValues') return actual.every(one);
  if (qualifier === 'ForAnyValue') return actual.some(one);
  return negated ? actual.every(one) : actual.some(one);
}

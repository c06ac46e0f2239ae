/**
 * A small model of how IAM authorizes invoking a Lambda function, for the statements this construct
 * writes: the request context Lambda builds (action, the function's ARN and tags, whether the call
 * came through a function URL, the URL's auth type) and the evaluation (an explicit Deny wins, then
 * any Allow, else denied). Condition operators or keys the model does not know make it throw, so a
 * policy change cannot pass unexamined.
 *
 * Lambda's service authorization reference: `lambda:InvokeFunction` takes `aws:ResourceTag/${TagKey}`
 * and `lambda:InvokedViaFunctionUrl`; `lambda:InvokeFunctionUrl` takes `aws:ResourceTag/${TagKey}` and
 * `lambda:FunctionUrlAuthType`. Since October 2025 a call through an AWS_IAM function URL needs both
 * actions allowed.
 */

export interface InvokeRequest {
  readonly action: 'lambda:InvokeFunction' | 'lambda:InvokeFunctionUrl';
  /** The function's ARN as the statements name it (a token's resolved JSON, or a plain string). */
  readonly resource: string;
  readonly tags: Readonly<Record<string, string>>;
  /** `lambda:InvokedViaFunctionUrl`: present (true) for the InvokeFunction check of a URL call. */
  readonly viaUrl: boolean;
}

export type Decision = 'allowed' | 'denied by default' | 'explicitly denied';

/** The checks IAM makes for one way in: a direct invoke is one check, a URL call two (both must allow). */
export function invokeChecks(resource: string, tags: Record<string, string>, through: 'direct' | 'url'): InvokeRequest[] {
  if (through === 'direct') return [{ action: 'lambda:InvokeFunction', resource, tags, viaUrl: false }];
  return [
    { action: 'lambda:InvokeFunctionUrl', resource, tags, viaUrl: true },
    { action: 'lambda:InvokeFunction', resource, tags, viaUrl: true },
  ];
}

/** Decides every check; the way in is open only if each is allowed. */
export function evaluateInvoke(statements: any[], checks: InvokeRequest[]): Decision {
  const decisions = checks.map((check) => evaluateOne(statements, check));
  if (decisions.includes('explicitly denied')) return 'explicitly denied';
  return decisions.every((d) => d === 'allowed') ? 'allowed' : 'denied by default';
}

function evaluateOne(statements: any[], request: InvokeRequest): Decision {
  const matching = statements.filter(
    (s) => applies(s.Action ?? s.NotAction, request.action, s.NotAction !== undefined) && coversResource(s.Resource, request.resource) && conditionsHold(s.Condition ?? {}, request),
  );
  if (matching.some((s) => s.Effect === 'Deny')) return 'explicitly denied';
  if (matching.some((s) => s.Effect === 'Allow')) return 'allowed';
  return 'denied by default';
}

function applies(actions: unknown, action: string, negated: boolean): boolean {
  const hit = ([] as string[]).concat(actions as string[]).some((a) => wildcard(a, action));
  return negated ? !hit : hit;
}

function coversResource(resources: unknown, resource: string): boolean {
  return ([] as unknown[]).concat(resources).some((r) => (typeof r === 'string' ? wildcard(r, resource) : JSON.stringify(r) === resource));
}

function wildcard(pattern: string, value: string): boolean {
  return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`).test(value);
}

function conditionsHold(conditions: Record<string, Record<string, unknown>>, request: InvokeRequest): boolean {
  return Object.entries(conditions).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => holds(operator, value(key, request), ([] as string[]).concat(expected as string[]))),
  );
}

function value(key: string, request: InvokeRequest): string | undefined {
  const tag = /^aws:ResourceTag\/(.+)$/.exec(key);
  if (tag) return request.tags[tag[1]];
  switch (key) {
    case 'lambda:InvokedViaFunctionUrl':
      // Only the InvokeFunction check of a URL call carries it.
      return request.action === 'lambda:InvokeFunction' && request.viaUrl ? 'true' : undefined;
    case 'lambda:FunctionUrlAuthType':
      return request.action === 'lambda:InvokeFunctionUrl' ? 'AWS_IAM' : undefined;
    default:
      throw new Error(`the model does not know the condition key ${key}`);
  }
}

function holds(operator: string, actual: string | undefined, expected: string[]): boolean {
  switch (operator) {
    case 'StringEquals':
      return actual !== undefined && expected.includes(actual);
    // A negated operator matches a missing key (IAM's rule for absent context keys).
    case 'StringNotEquals':
      return actual === undefined || !expected.includes(actual);
    case 'Bool':
      return actual !== undefined && expected.map(String).includes(actual);
    case 'BoolIfExists':
      return actual === undefined || expected.map(String).includes(actual);
    default:
      throw new Error(`the model does not know the condition operator ${operator}`);
  }
}

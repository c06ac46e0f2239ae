import { conditionsHold, coversAction, decide, wildcard, type Decision } from './iam-evaluation';

/**
 * A small model of how IAM authorizes invoking a Lambda function, for the statements this construct
 * writes: the request context Lambda builds (action, the function's ARN and tags, whether the call
 * came through a function URL, the URL's auth type, the caller's principal tags) and the evaluation
 * of iam-evaluation.ts.
 *
 * Lambda's service authorization reference: `lambda:InvokeFunction` takes `aws:ResourceTag/${TagKey}`
 * and `lambda:InvokedViaFunctionUrl`; `lambda:InvokeFunctionUrl` takes `aws:ResourceTag/${TagKey}` and
 * `lambda:FunctionUrlAuthType`. Since October 2025 a call through an AWS_IAM function URL needs both
 * actions allowed. `aws:PrincipalTag/${TagKey}` is global: the tags of the calling role.
 */

export type { Decision };

export interface InvokeRequest {
  readonly action: 'lambda:InvokeFunction' | 'lambda:InvokeFunctionUrl';
  /** The function's ARN as the statements name it (a token's resolved JSON, or a plain string). */
  readonly resource: string;
  readonly tags: Readonly<Record<string, string>>;
  /** `lambda:InvokedViaFunctionUrl`: present (true) for the InvokeFunction check of a URL call. */
  readonly viaUrl: boolean;
  /** The calling principal's tags. @default - none */
  readonly principalTags?: Readonly<Record<string, string>>;
}

/**
 * The checks IAM makes for one way in: a direct invoke is one check, a URL call two (both must
 * allow). `principalTags` are the caller's (a role of the construct carries its owner's).
 */
export function invokeChecks(
  resource: string,
  tags: Record<string, string>,
  through: 'direct' | 'url',
  principalTags?: Record<string, string>,
): InvokeRequest[] {
  if (through === 'direct') return [{ action: 'lambda:InvokeFunction', resource, tags, viaUrl: false, principalTags }];
  return [
    { action: 'lambda:InvokeFunctionUrl', resource, tags, viaUrl: true, principalTags },
    { action: 'lambda:InvokeFunction', resource, tags, viaUrl: true, principalTags },
  ];
}

/** Decides every check; the way in is open only if each is allowed. */
export function evaluateInvoke(statements: any[], checks: InvokeRequest[]): Decision {
  const decisions = checks.map((check) => evaluateOne(statements, check));
  if (decisions.includes('explicitly denied')) return 'explicitly denied';
  return decisions.every((d) => d === 'allowed') ? 'allowed' : 'denied by default';
}

function evaluateOne(statements: any[], request: InvokeRequest): Decision {
  return decide(
    statements.filter((s) => coversAction(s, request.action) && coversResource(s.Resource, request.resource)),
    (s) => conditionsHold(s.Condition, (key) => value(key, request)),
  );
}

function coversResource(resources: unknown, resource: string): boolean {
  return ([] as unknown[]).concat(resources).some((r) => (typeof r === 'string' ? wildcard(r, resource) : JSON.stringify(r) === resource));
}

function value(key: string, request: InvokeRequest): string[] | undefined {
  const one = (v: string | undefined) => (v === undefined ? undefined : [v]);
  const resourceTag = /^aws:ResourceTag\/(.+)$/.exec(key);
  if (resourceTag) return one(request.tags[resourceTag[1]]);
  const principalTag = /^aws:PrincipalTag\/(.+)$/.exec(key);
  if (principalTag) return one(request.principalTags?.[principalTag[1]]);
  switch (key) {
    case 'lambda:InvokedViaFunctionUrl':
      // Only the InvokeFunction check of a URL call carries it.
      return one(request.action === 'lambda:InvokeFunction' && request.viaUrl ? 'true' : undefined);
    case 'lambda:FunctionUrlAuthType':
      return one(request.action === 'lambda:InvokeFunctionUrl' ? 'AWS_IAM' : undefined);
    default:
      throw new Error(`the model does not know the condition key ${key}`);
  }
}

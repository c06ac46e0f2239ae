import { conditionsHold, coversAction, decide, wildcard, type Decision } from './iam-evaluation';

/**
 * A small model of how IAM authorizes EventBridge's PutEvents, for the statements this construct
 * writes: the request context EventBridge builds ("Using IAM policy conditions in Amazon
 * EventBridge": `events:source`, one value per entry of the request; the global `aws:PrincipalArn`
 * and `aws:PrincipalTag/<key>` of the caller) and the evaluation of iam-evaluation.ts over the
 * caller's identity statements and the bus's resource policy. Values are concrete (template-values.ts).
 */

export interface PutEventsRequest {
  /** The bus's ARN. */
  readonly bus: string;
  /** The `source` of each entry. */
  readonly sources: readonly string[];
  /** The caller: a role's ARN (`aws:PrincipalArn` names the role of a role session). */
  readonly principalArn: string;
  readonly principalTags?: Readonly<Record<string, string>>;
}

export function evaluatePutEvents(identity: readonly any[], busPolicy: readonly any[], request: PutEventsRequest): Decision {
  const applies = (s: any) => coversAction(s, 'events:PutEvents') && covers(s.Resource, request.bus);
  const fromBus = busPolicy.filter((s) => applies(s) && principalCovers(s.Principal, request.principalArn));
  return decide([...identity.filter(applies), ...fromBus], (s) => conditionsHold(s.Condition, (key) => value(key, request)));
}

function covers(resources: unknown, resource: string): boolean {
  return ([] as unknown[]).concat(resources).some((r) => typeof r === 'string' && wildcard(r, resource));
}

function principalCovers(principal: any, arn: string): boolean {
  if (principal === '*' || principal?.AWS === '*') return true;
  return ([] as unknown[]).concat(principal?.AWS ?? []).some((p) => p === arn);
}

function value(key: string, request: PutEventsRequest): string[] | undefined {
  if (key === 'events:source') return [...request.sources];
  if (key === 'aws:PrincipalArn') return [request.principalArn];
  const tag = /^aws:PrincipalTag\/(.+)$/.exec(key);
  if (tag) {
    const found = request.principalTags?.[tag[1]];
    return found === undefined ? undefined : [found];
  }
  throw new Error(`the model does not know the condition key ${key}`);
}

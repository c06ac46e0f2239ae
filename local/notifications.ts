/**
 * The reply bus's rules that notify an SNS topic (`approvalNotifications`): each bus event
 * is matched against those rules' patterns and, where one matches, the message the rule's input
 * transformer would send is printed instead of being published, its approve line made local
 * (`--local` for `--stack`). A rule whose pattern the stand-in cannot evaluate is set aside at the
 * start, with the reason, never answered "no match".
 */
import { randomUUID } from 'node:crypto';
import type { Template } from './assembly';
import { refOf } from './assembly';
import type { BusEvent } from './endpoints';
import { compileEventPattern, EventPatternError, type EventMatcher } from './event-pattern';
import { LOCAL_ACCOUNT, LOCAL_REGION, type Resolver } from './intrinsics';
import { renderInput } from './rule-input';

export interface TopicRule {
  readonly rule: string;
  readonly topic: string;
  readonly bus: string;
  readonly matches: EventMatcher;
  readonly input: { readonly paths?: Record<string, string>; readonly template?: string; readonly text?: string };
}

/** A rule with an SNS topic target whose pattern the stand-in cannot evaluate, and why. */
export interface SetAsideRule {
  readonly rule: string;
  readonly reason: string;
}

/** Rules with an SNS topic target, and the bus each listens on (by name); those it cannot evaluate, set aside. */
export function topicRules(template: Template, resolver: Resolver): { rules: TopicRule[]; setAside: SetAsideRule[] } {
  const resources = template.Resources ?? {};
  const rules: TopicRule[] = [];
  const setAside: SetAsideRule[] = [];
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::Events::Rule') continue;
    const bus = busName(r.Properties?.EventBusName === undefined ? 'default' : String(resolver.resolve(r.Properties.EventBusName)));
    const toTopics = ((r.Properties?.Targets ?? []) as Array<Record<string, any>>).flatMap((target) => {
      const topic = refOf(target.Arn);
      return topic !== undefined && resources[topic]?.Type === 'AWS::SNS::Topic' ? [{ target, topic }] : [];
    });
    if (toTopics.length === 0) continue;
    let matches: EventMatcher;
    try {
      matches = compileEventPattern(r.Properties?.EventPattern ?? {});
    } catch (error) {
      if (!(error instanceof EventPatternError)) throw error;
      setAside.push({ rule: id, reason: error.message });
      continue;
    }
    for (const { target, topic } of toTopics) {
      const transformer = target.InputTransformer as { InputPathsMap?: Record<string, string>; InputTemplate?: string } | undefined;
      rules.push({
        rule: id,
        topic,
        bus,
        matches,
        input: transformer
          ? { paths: transformer.InputPathsMap ?? {}, template: String(resolver.resolve(transformer.InputTemplate) ?? '') }
          : { text: typeof target.Input === 'string' ? target.Input : undefined },
      });
    }
  }
  return { rules, setAside };
}

/** `arn:aws:events:...:event-bus/NAME` or `NAME` → `NAME`. */
export function busName(value: string): string {
  const at = value.indexOf('event-bus/');
  return at >= 0 ? value.slice(at + 'event-bus/'.length) : value;
}

/** The event as EventBridge hands it to rules. */
export function eventEnvelope(event: BusEvent): Record<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': event.detailType,
    source: event.source,
    account: LOCAL_ACCOUNT,
    time: event.time,
    region: LOCAL_REGION,
    resources: [],
    detail: event.detail,
  };
}

/** The SNS messages this event would cause: one per matching rule target. */
export function notificationsFor(rules: readonly TopicRule[], event: BusEvent): Array<{ topic: string; message: string }> {
  const envelope = eventEnvelope(event);
  return rules
    .filter((rule) => rule.bus === busName(event.bus) && rule.matches(envelope))
    .map((rule) => ({ topic: rule.topic, message: render(rule, envelope) }));
}

function render(rule: TopicRule, envelope: Record<string, unknown>): string {
  if (rule.input.template === undefined) return rule.input.text ?? JSON.stringify(envelope);
  return localCommands(renderInput({ paths: rule.input.paths ?? {}, template: rule.input.template }, envelope));
}

/** `npx cdk-tool-handler approvals … --stack NAME [--output ID]`, the cloud's line: */
const CLOUD_APPROVALS_LINE = /(npx cdk-tool-handler approvals \S+ \S+) --stack \S+(?: --output \S+)?/g;

/**
 * The message with the CLI lines that work here: the template's approve line reaches the deployed
 * stack (`--stack`), which a local run is not, so it is printed with `--local` instead.
 */
export function localCommands(message: string): string {
  return message.replace(CLOUD_APPROVALS_LINE, '$1 --local');
}

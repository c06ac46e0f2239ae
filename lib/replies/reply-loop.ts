import { Stack, Token, TokenComparison } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import { REPLY_SOURCE_ROOT } from '../../lambda/construct-contract';
import { fail } from '../errors';

/**
 * Keeps replies from coming back in as calls. The function publishes every reply to `replyBus` with
 * a source `cdk-tool-handler.<owner>`; a rule on that same bus whose pattern does not look at
 * `source` could match those replies and hand each back to the function as a new call, forever.
 *
 * So for a rule on the reply bus: a pattern without `source` gets
 * `source: [{ "anything-but": { "prefix": "cdk-tool-handler" } }]`, and a pattern whose `source`
 * names a source beginning with `cdk-tool-handler` throws. Other patterns are returned as given.
 *
 * @param label how the user wrote the event source, for the message (`eventSources[0]`)
 * @param ruleBus the rule's bus; undefined is the account's default bus
 */
export function patternAvoidingReplies(
  scope: Construct,
  label: string,
  pattern: events.EventPattern,
  ruleBus: events.IEventBus | undefined,
  replyBus: events.IEventBus | undefined,
): events.EventPattern {
  if (replyBus === undefined || !sameBus(scope, ruleBus, replyBus)) return pattern;
  if (pattern.source === undefined) {
    return { ...pattern, source: events.Match.anythingButPrefix(REPLY_SOURCE_ROOT) };
  }
  const sources: unknown = Stack.of(scope).resolve(pattern.source);
  if (Array.isArray(sources) && sources.some(matchesReplySources)) {
    fail(
      `\`${label}.eventPattern.source\` must not name a source beginning with "${REPLY_SOURCE_ROOT}" on the reply bus ` +
        `(\`replyBus\`): those are the sources of the functions' own replies, which would come back in as tool calls, ` +
        `forever; got: ${JSON.stringify(sources)}.`,
      scope,
    );
  }
  return pattern;
}

/** Whether a `source` alternative matches a reply source: one that begins with the root, or a prefix of it or beyond it. */
function matchesReplySources(alternative: unknown): boolean {
  if (typeof alternative === 'string') return alternative.startsWith(REPLY_SOURCE_ROOT);
  const prefix = (alternative as { prefix?: unknown } | null)?.prefix;
  return typeof prefix === 'string' && (REPLY_SOURCE_ROOT.startsWith(prefix) || prefix.startsWith(REPLY_SOURCE_ROOT));
}

/**
 * Whether a rule on `ruleBus` (undefined: the default bus of the rule's account) sees the events put on
 * `replyBus`: the same construct, the same ARN, or both the default bus of this account and region.
 */
function sameBus(scope: Construct, ruleBus: events.IEventBus | undefined, replyBus: events.IEventBus): boolean {
  if (ruleBus === replyBus) return true;
  const stack = Stack.of(scope);
  if (ruleBus !== undefined) {
    const arn = (bus: events.IEventBus) => JSON.stringify(stack.resolve(bus.eventBusArn));
    if (arn(ruleBus) === arn(replyBus)) return true;
  }
  return isLocalDefaultBus(stack, ruleBus) && isLocalDefaultBus(stack, replyBus);
}

/**
 * Whether `bus` is the default bus of `stack`'s account and region. A bus is known to be a default bus
 * by its name (`EventBus.fromEventBusName(scope, id, 'default')`, or an ARN ending in
 * `event-bus/default`); it is another account's or region's only when its environment says so.
 */
function isLocalDefaultBus(stack: Stack, bus: events.IEventBus | undefined): boolean {
  if (bus === undefined) return true;
  if (Token.isUnresolved(bus.eventBusName) || bus.eventBusName !== 'default') return false;
  const differs = (a: string, b: string) => Token.compareStrings(a, b) === TokenComparison.DIFFERENT;
  return !differs(bus.env.account, stack.account) && !differs(bus.env.region, stack.region);
}

import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import { REPLY_SOURCE_ROOT, replyEventSource } from '../../lambda/construct-contract';
import { PUBLISHER_TAG, TAG } from './tags';

/**
 * Every source a reply-bus event of the construct may have, as IAM patterns: `cdk-tool-handler.<owner>`
 * of any owner, and `cdk-tool-handler` itself (what earlier versions published).
 */
export const REPLY_SOURCE_PATTERNS: string[] = [REPLY_SOURCE_ROOT, `${REPLY_SOURCE_ROOT}.*`];

/**
 * PutEvents on the reply bus with the source `cdk-tool-handler.<owner>` only (`events:source`): for
 * the handler and the expirer, the only parts of the construct that publish there.
 */
export function putRepliesStatement(bus: events.IEventBus, owner: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['events:PutEvents'],
    resources: [bus.eventBusArn],
    conditions: { StringEquals: { 'events:source': replyEventSource(owner) } },
  });
}

/**
 * On every role of `owner` (whatever bus it may later be allowed to put on, the default bus
 * included): no PutEvents of another owner's reply source. A request is refused when one of its
 * entries has a reply source (`REPLY_SOURCE_PATTERNS`) and one is not this owner's; the construct's
 * functions put one entry at a time, so only a request that names another owner's source is refused.
 */
export function otherOwnersRepliesDenial(owner: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'CdkToolHandlerNoOtherOwnersReplies',
    effect: iam.Effect.DENY,
    actions: ['events:PutEvents'],
    resources: ['*'],
    conditions: {
      'ForAnyValue:StringLike': { 'events:source': REPLY_SOURCE_PATTERNS },
      'ForAnyValue:StringNotEquals': { 'events:source': [replyEventSource(owner)] },
    },
  });
}

/**
 * The reply bus's own policy, two statements, once per bus however many handlers publish there:
 * nobody may put events with a reply source but a principal carrying the construct's publisher tag
 * (the handler and expirer roles), and such a principal only with its own owner's source (its owner
 * tag, as a policy variable). So a `Tool Approval Requested` notification can only come from the
 * owner's own functions.
 */
export const REPLY_BUS_STATEMENT_SID = 'CdkToolHandlerOnlyItsFunctionsPublish';
export const REPLY_BUS_OWNER_STATEMENT_SID = 'CdkToolHandlerEachOwnerItsOwnSource';

export function replyBusGuardStatements(bus: events.IEventBus): iam.PolicyStatement[] {
  return [
    // A missing tag counts as not equal: untagged principals are denied too.
    denyReplySourcesOn(bus, REPLY_BUS_STATEMENT_SID, { StringNotEquals: { [`aws:PrincipalTag/${PUBLISHER_TAG.key}`]: PUBLISHER_TAG.value } }),
    denyReplySourcesOn(bus, REPLY_BUS_OWNER_STATEMENT_SID, {
      'ForAnyValue:StringNotEquals': { 'events:source': [`${REPLY_SOURCE_ROOT}.\${aws:PrincipalTag/${TAG.owner}}`] },
    }),
  ];
}

/** Denies every principal PutEvents on `bus` of a request with a reply source (any of its up to 10 entries), where `condition` holds. */
function denyReplySourcesOn(bus: events.IEventBus, sid: string, condition: Record<string, Record<string, unknown>>): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    effect: iam.Effect.DENY,
    principals: [new iam.AnyPrincipal()],
    actions: ['events:PutEvents'],
    resources: [bus.eventBusArn],
    conditions: { 'ForAnyValue:StringLike': { 'events:source': REPLY_SOURCE_PATTERNS }, ...condition },
  });
}

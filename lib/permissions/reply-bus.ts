import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import { REPLY_EVENT_SOURCE } from '../../lambda/names';
import { PUBLISHER_TAG } from '../tags';

/**
 * PutEvents on the reply bus with the source `cdk-tool-handler` only (`events:source`): for the
 * handler and the expirer, the only parts of the construct that publish there.
 */
export function putRepliesStatement(bus: events.IEventBus): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['events:PutEvents'],
    resources: [bus.eventBusArn],
    conditions: { StringEquals: { 'events:source': REPLY_EVENT_SOURCE } },
  });
}

/**
 * The reply bus's own policy: nobody may put events with the source `cdk-tool-handler` but a
 * principal carrying the construct's publisher tag (the handler and expirer roles), so a
 * `Tool Approval Requested` notification can only come from the construct. One statement per bus,
 * whatever the number of handlers publishing there.
 */
export const REPLY_BUS_STATEMENT_SID = 'CdkToolHandlerOnlyItsFunctionsPublish';

export function replyBusGuardStatement(bus: events.IEventBus): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: REPLY_BUS_STATEMENT_SID,
    effect: iam.Effect.DENY,
    principals: [new iam.AnyPrincipal()],
    actions: ['events:PutEvents'],
    resources: [bus.eventBusArn],
    conditions: {
      // Any entry of the request with that source (a PutEvents carries up to 10 entries).
      'ForAnyValue:StringEquals': { 'events:source': [REPLY_EVENT_SOURCE] },
      // A missing tag counts as not equal: untagged principals are denied too.
      StringNotEquals: { [`aws:PrincipalTag/${PUBLISHER_TAG.key}`]: PUBLISHER_TAG.value },
    },
  });
}

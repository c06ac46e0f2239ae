import { Annotations, Tags } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { putRepliesStatement, REPLY_BUS_STATEMENT_SID, replyBusGuardStatement } from './permissions';
import { PUBLISHER_TAG } from './tags';

/**
 * Lets the handler function publish its replies on `bus` (with the source `cdk-tool-handler` only),
 * tags its role as a publisher, and guards the bus against everyone else (`guardReplyBus`).
 */
export function publishReplies(scope: Construct, fn: lambda.IFunction, bus: events.IEventBus): void {
  fn.addToRolePolicy(putRepliesStatement(bus));
  Tags.of(fn.role!).add(PUBLISHER_TAG.key, PUBLISHER_TAG.value);
  guardReplyBus(scope, bus);
}

/**
 * Puts the reply bus's guard statement (`replyBusGuardStatement`) on a bus defined in this app,
 * once per bus however many handlers publish there; an imported bus's policy cannot be changed from
 * here, which adds a warning.
 */
function guardReplyBus(scope: Construct, bus: events.IEventBus): void {
  if (!(bus instanceof events.EventBus)) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:replyBusPolicy',
      '`replyBus` is imported, so its policy cannot be extended here: any principal with events:PutEvents on it can ' +
        `publish events with the source cdk-tool-handler (such as a fake "Tool Approval Requested"). Add to its policy a ` +
        `Deny of events:PutEvents with that source for principals without the tag ${PUBLISHER_TAG.key}=${PUBLISHER_TAG.value}.`,
    );
    return;
  }
  // aws-cdk-lib names the statement's construct `cdk-<sid>`.
  if (bus.node.tryFindChild(`cdk-${REPLY_BUS_STATEMENT_SID}`)) return;
  bus.addToResourcePolicy(replyBusGuardStatement(bus));
}

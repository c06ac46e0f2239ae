import { Annotations, Tags } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { putRepliesStatement, REPLY_BUS_STATEMENT_SID, replyBusGuardStatements } from '../permissions';
import { PUBLISHER_TAG, TAG } from '../permissions/tags';

/**
 * Lets `fn` (the handler or the expirer) publish on `bus` with its owner's source
 * (`cdk-tool-handler.<owner>`) only, tags its role as a publisher, and guards the bus against
 * everyone else (`guardReplyBus`).
 */
export function publishReplies(scope: Construct, fn: lambda.IFunction, bus: events.IEventBus, owner: string): void {
  fn.addToRolePolicy(putRepliesStatement(bus, owner));
  Tags.of(fn.role!).add(PUBLISHER_TAG.key, PUBLISHER_TAG.value);
  guardReplyBus(scope, bus);
}

/**
 * Puts the reply bus's guard statements (`replyBusGuardStatements`) on a bus defined in this app,
 * once per bus however many handlers publish there; an imported bus's policy cannot be changed from
 * here, which adds a warning.
 */
function guardReplyBus(scope: Construct, bus: events.IEventBus): void {
  if (!(bus instanceof events.EventBus)) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:replyBusPolicy',
      '`replyBus` is imported, so its policy cannot be extended here: any principal with events:PutEvents on it, other ' +
        'than the roles of this construct (which are denied other owners\' sources), can publish events with a reply ' +
        'source cdk-tool-handler.<owner> (such as a fake "Tool Approval Requested"). Add to its policy the two Denies of ' +
        `the security guide (docs/security.md, also in the package): reply sources only for principals tagged ${PUBLISHER_TAG.key}=${PUBLISHER_TAG.value}, ` +
        `and each only its own owner's (${TAG.owner}).`,
    );
    return;
  }
  // aws-cdk-lib names the statement's construct `cdk-<sid>`.
  if (bus.node.tryFindChild(`cdk-${REPLY_BUS_STATEMENT_SID}`)) return;
  for (const statement of replyBusGuardStatements(bus)) bus.addToResourcePolicy(statement);
}

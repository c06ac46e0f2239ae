import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { invokeFunctionStatement, wallOffRole } from '../permissions';
import { publishReplies } from '../replies/reply-bus';

/** How often the expirer runs: an approval is marked expired at most this long after its expiry. */
export const EXPIRY_INTERVAL = Duration.minutes(4);

export interface ExpiryScheduleOptions {
  readonly expirer: lambda.IFunction;
  readonly replyBus?: events.IEventBus;
  /** Whose approvals the expirer serves: its events' source, and the schedule role's walls. */
  readonly owner: string;
}

/**
 * Expiry: the expirer function (prebuilt, role of its own, its statements in lib/permissions) on
 * an EventBridge Scheduler schedule; it puts `Tool Approval Expired` on the reply bus.
 */
export class ExpirySchedule extends Construct {
  readonly schedule: scheduler.CfnSchedule;

  constructor(scope: Construct, id: string, options: ExpiryScheduleOptions) {
    super(scope, id);
    const { expirer } = options;
    if (options.replyBus) publishReplies(scope, expirer, options.replyBus, options.owner);
    // The L1, with a role of our own: the L2 target grants invoke on the function's versions too.
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
      description: 'Runs the approvals expirer on its schedule, nothing else.',
    });
    role.addToPolicy(invokeFunctionStatement(expirer));
    wallOffRole(role, options.owner);
    this.schedule = new scheduler.CfnSchedule(this, 'Schedule', {
      description: 'cdk-tool-handler: marks undecided approvals past their expiry as expired, and announces them.',
      scheduleExpression: `rate(${EXPIRY_INTERVAL.toMinutes()} minutes)`,
      flexibleTimeWindow: { mode: 'OFF' },
      target: {
        arn: expirer.functionArn,
        roleArn: role.roleArn,
        retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: EXPIRY_INTERVAL.toSeconds() },
      },
    });
  }
}

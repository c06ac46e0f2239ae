import * as path from 'node:path';
import { Duration, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ApprovalsInbox, ToolHandler } from '../lib';

export interface SampleStackProps extends StackProps {
  /**
   * Adds an approvals inbox (Cognito sign-in) for the tools' approvals: what `npm run demo` decides through.
   *
   * @default false
   */
  readonly inbox?: boolean;
}

/**
 * The sample: the two tools of `tools.ts` behind a queue, one EventBridge rule and direct invokes,
 * an agent role that may send calls, and an approver role that may decide approvals.
 */
export class SampleStack extends Stack {
  public readonly tools: ToolHandler;

  constructor(scope: Construct, id: string, props?: SampleStackProps) {
    super(scope, id, props);

    this.tools = new ToolHandler(this, 'Tools', {
      entry: path.join(__dirname, 'tools.ts'),
      allowedTools: ['add', 'refund'],
      timeout: Duration.seconds(30),
      margin: Duration.seconds(2),
      eventSources: [{ eventPattern: { source: ['sample.agent'], detailType: ['Tool Call'] } }],
    });

    const agent = new iam.Role(this, 'AgentRole', {
      assumedBy: new iam.AccountRootPrincipal(),
      description: 'An agent that sends tool calls.',
    });
    this.tools.grantSendToolCalls(agent);
    this.tools.grantInvoke(agent);

    const approver = new iam.Role(this, 'ApproverRole', {
      assumedBy: new iam.AccountRootPrincipal(),
      description: 'A human approver: lists, reads and decides approvals through the approvals API, nothing else.',
    });
    this.tools.grantApprove(approver);

    if (props?.inbox) new ApprovalsInbox(this, 'Inbox', { handlers: [this.tools] });

    Validations.of(this.tools.lambdaFunction).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the construct\'s default runtime, the one the runtime library is tested on; ' +
        'set `runtime` to move to a newer one.',
    });
  }
}

import { CfnOutput, Lazy, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { API_URL_OUTPUT_SUFFIX, replyEventSource } from '../../lambda/construct-contract';
import { DEFAULTS } from '../defaults';
import { fail } from '../errors';
import { allowDeadLetters } from '../hosts/eventbridge-sends';
import { ToolHandlerProps } from '../tool-handler-props';

/**
 * `approvalNotifications`, when set (it needs `replyBus`): the rules that tell approvers of requests
 * and expiries (`ApprovalNotifications`).
 */
export function notifyApprovers(
  scope: Construct,
  props: ToolHandlerProps,
  options: Pick<ApprovalNotificationsOptions, 'deadLetterQueue' | 'apiUrlOutput' | 'owner'>,
): void {
  if (!props.approvalNotifications) return;
  if (!props.replyBus) {
    fail('`approvalNotifications` needs `replyBus`: the notifications are made from the reply bus\'s events; set both, or neither.', scope);
  }
  new ApprovalNotifications(scope, 'ApprovalNotifications', {
    replyBus: props.replyBus,
    topic: props.approvalNotifications,
    withArgs: props.notifyWithArgs ?? false,
    ...options,
  });
}

export interface ApprovalNotificationsOptions {
  readonly replyBus: events.IEventBus;
  /** Whose approvals: the rules match this owner's source only, so a shared bus never tells these approvers of another owner's. */
  readonly owner: string;
  readonly topic: sns.ITopic;
  /** Include the call's args (they may hold personal data). */
  readonly withArgs: boolean;
  readonly deadLetterQueue: sqs.IQueue;
  /** The stack output that holds this handler's approvals API URL. */
  readonly apiUrlOutput: CfnOutput;
}


const field = (path: string) => events.EventField.fromPath(`$.detail.${path}`);

/**
 * Approvers learn of requests and expiries: two rules on the reply bus, each turning its event
 * into a short readable message on the topic, with the CLI line that approves it.
 */
export class ApprovalNotifications extends Construct {
  /** The tool handler: its key grants list these rules. */
  private readonly handler: Construct;
  private readonly requestedRule: events.Rule;
  private readonly requestedMessage: string;

  constructor(scope: Construct, id: string, options: ApprovalNotificationsOptions) {
    super(scope, id);
    this.handler = scope;
    const stack = Stack.of(this);
    const stackName = stack.stackName;
    // Known only once the whole stack is built: other handlers may be added after this one.
    const output = Lazy.string({
      produce: () => (approvalsApiOutputs(stack).length > 1 ? ` --output ${stack.resolve(options.apiUrlOutput.logicalId)}` : ''),
    });
    const ids = `approval ${field('approval_id')} (run ${field('run_id')}, call ${field('call_id')})`;
    // Who asked: the caller's id, or "(no caller)" when the call proved none (the event always says).
    const requested =
      `Tool ${field('tool')} needs approval: ${ids}, requested by ${field('requested_by_id')}, until ${field('expires_at')}.` +
      (options.withArgs ? ` Args: ${field('args')}.` : '') +
      ` Approve: npx cdk-tool-handler approvals approve ${field('approval_id')} --stack ${stackName}${output}`;
    const expired = `Tool ${field('tool')} was not approved in time: ${ids} expired at ${field('expires_at')}.`;
    this.requestedMessage = requested;
    this.requestedRule = this.rule('Requested', 'Tool Approval Requested', requested, options);
    this.rule('Expired', 'Tool Approval Expired', expired, options);
  }

  /**
   * An approvals inbox serves the handler: each request's message leads with the approval's page
   * there (the event's `inbox_url`), before the CLI line.
   */
  public linkInbox(): void {
    const message = `Decide in the inbox: ${field('inbox_url')} . ${this.requestedMessage}`;
    const input = events.RuleTargetInput.fromText(message).bind(this.requestedRule);
    const cfn = this.requestedRule.node.defaultChild as events.CfnRule;
    cfn.addPropertyOverride('Targets.0.InputTransformer.InputTemplate', input.inputTemplate);
    cfn.addPropertyOverride('Targets.0.InputTransformer.InputPathsMap', input.inputPathsMap);
  }

  private rule(id: string, detailType: string, message: string, options: ApprovalNotificationsOptions): events.Rule {
    const rule = new events.Rule(this, id, {
      eventBus: options.replyBus,
      description: `cdk-tool-handler: ${detailType} events to the approvers' topic.`,
      eventPattern: { source: [replyEventSource(options.owner)], detailType: [detailType] },
      targets: [
        new targets.SnsTopic(options.topic, {
          message: events.RuleTargetInput.fromText(message),
          deadLetterQueue: options.deadLetterQueue,
          retryAttempts: DEFAULTS.ruleRetryAttempts,
          maxEventAge: DEFAULTS.ruleMaxEventAge,
        }),
      ],
    });
    allowDeadLetters(this.handler, rule, options.replyBus, options.deadLetterQueue);
    return rule;
  }
}

/** The approvals API URL outputs of `stack`. */
function approvalsApiOutputs(stack: Stack): CfnOutput[] {
  return stack.node
    .findAll()
    .filter((c): c is CfnOutput => c instanceof CfnOutput && String(stack.resolve(c.logicalId)).endsWith(API_URL_OUTPUT_SUFFIX));
}

import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';

export interface ResumePipeResources {
  /** The approvals table's stream. */
  readonly streamArn: string;
  /** The resume bus. */
  readonly bus: events.IEventBus;
  /** Where the pipe keeps stream records it could not deliver. */
  readonly deadLetterQueue: sqs.IQueue;
}

/** The resume pipe's role: reads the table's stream, puts on the resume bus and its dead-letter queue, nothing else. */
export function grantResumePipe(role: iam.IRole, resources: ResumePipeResources): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
      resources: [resources.streamArn],
    }),
  );
  resources.bus.grantPutEventsTo(role);
  resources.deadLetterQueue.grantSendMessages(role);
}

/**
 * The resume bus's own policy: nobody but the pipe's role may put events there, so no one can feed
 * `{ approval_id, owner }` to another owner's queue (or hold up a FIFO queue's resume group with bad
 * resumes). A pipe puts as its role, which `aws:PrincipalArn` names (the role, not the session).
 */
export function onlyThePipePutsStatement(bus: events.IEventBus, role: iam.IRole): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'CdkToolHandlerOnlyTheResumePipePuts',
    effect: iam.Effect.DENY,
    principals: [new iam.AnyPrincipal()],
    actions: ['events:PutEvents'],
    resources: [bus.eventBusArn],
    conditions: { ArnNotEquals: { 'aws:PrincipalArn': role.roleArn } },
  });
}

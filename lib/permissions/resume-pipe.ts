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

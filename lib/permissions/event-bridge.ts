import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';

const EVENTBRIDGE = 'events.amazonaws.com';

/** A queue policy statement: EventBridge may send to `queue` for the rule of `ruleArn` only. */
export function eventBridgeSendStatement(queue: sqs.IQueue, ruleArn: string, actions: string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({
    principals: [new iam.ServicePrincipal(EVENTBRIDGE)],
    actions,
    resources: [queue.queueArn],
    conditions: { ArnEquals: { 'aws:SourceArn': ruleArn } },
  });
}

/**
 * A key policy statement: EventBridge may use the key to put messages into the queues it encrypts,
 * for the construct's own rules only (`aws:SourceArn`), and only for those queues (SQS names the
 * queue in the encryption context, `aws:sqs:arn`).
 */
export function eventBridgeKeyStatement(sid: string, ruleArns: string[], queueArns: string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    principals: [new iam.ServicePrincipal(EVENTBRIDGE)],
    actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
    resources: ['*'],
    conditions: {
      ArnEquals: { 'aws:SourceArn': ruleArns },
      StringEquals: { 'kms:EncryptionContext:aws:sqs:arn': queueArns },
    },
  });
}

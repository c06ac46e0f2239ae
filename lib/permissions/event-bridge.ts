import * as iam from 'aws-cdk-lib/aws-iam';

/**
 * A key policy statement: EventBridge (`events.amazonaws.com`, for this account's rules only) may
 * use the key to put events into the queues it encrypts (the tool queue, the event dead-letter queue).
 */
export function eventBridgeKeyStatement(account: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'AllowEventBridgeToUseKeyForToolHandlerDeadLetters',
    principals: [new iam.ServicePrincipal('events.amazonaws.com')],
    actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
    resources: ['*'],
    conditions: {
      StringEquals: { 'aws:SourceAccount': account },
    },
  });
}

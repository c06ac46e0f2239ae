import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * Amazon Data Firehose's role for the audit archive: what AWS documents an S3 destination needs,
 * and no more. The bucket may be listed; objects may be written, read back and their multipart
 * uploads aborted under the archive's prefixes only (`audit/<owner>/`, `audit-errors/<owner>/`):
 * no delete of any object, no other key of the bucket. It writes its delivery errors to its one log
 * stream.
 */
export function archiveDeliveryStatements(bucket: s3.IBucket, prefixes: readonly string[], errorStreamArn: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
      resources: [bucket.bucketArn],
    }),
    new iam.PolicyStatement({
      actions: ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
      resources: prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`)),
    }),
    new iam.PolicyStatement({
      actions: ['logs:PutLogEvents'],
      resources: [errorStreamArn],
    }),
  ];
}

/** CloudWatch Logs' role for the archive's subscription filters: puts records on the archive's delivery stream, nothing else. */
export function archiveSubscriptionStatement(deliveryStreamArn: string): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['firehose:PutRecord', 'firehose:PutRecordBatch'],
    resources: [deliveryStreamArn],
  });
}

/**
 * Read-only access to the audit records (`cdk-tool-handler audit --stack`): `FilterLogEvents` and
 * `GetLogEvents` on the log groups that hold them, and, to find those log groups, `GetTemplate` and
 * `ListStackResources` of the stack they are in. No write, no other log group.
 */
export function grantReadAudit(grantee: iam.IGrantable, logGroups: readonly logs.ILogGroup[], stack: Stack): iam.Grant {
  const read = logGroups
    .map((logGroup) => logGroup.grant(grantee, 'logs:FilterLogEvents', 'logs:GetLogEvents'))
    .reduce((all, next) => all.combine(next));
  const find = iam.Grant.addToPrincipal({
    grantee,
    actions: ['cloudformation:GetTemplate', 'cloudformation:ListStackResources'],
    resourceArns: [stack.stackId],
  });
  return read.combine(find);
}

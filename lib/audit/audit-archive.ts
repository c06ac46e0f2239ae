import { ArnFormat, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as destinations from 'aws-cdk-lib/aws-logs-destinations';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { AUDIT_FILTER_PATTERN } from '../../lambda/audit';
import { AuditArchiveOptions } from '../options/audit-archive-options';
import { wallOffRole } from '../permissions';
import { archiveDeliveryStatements, archiveSubscriptionStatement } from '../permissions/audit';

/** A log group that holds audit records, and the name of the part whose it is (`Handler`, `Api`, `Expirer`). */
export interface AuditLogGroup {
  readonly part: string;
  readonly logGroup: logs.ILogGroup;
}

export interface AuditArchiveProps extends AuditArchiveOptions {
  readonly owner: string;
  /** The log groups whose audit records the archive receives. */
  readonly logGroups: readonly AuditLogGroup[];
  /** The retention of the log group of Firehose's delivery errors. */
  readonly errorLogRetention: logs.RetentionDays;
  /** What happens to that log group when it leaves the stack (the bucket is always retained). */
  readonly removalPolicy: RemovalPolicy;
}

/** Where an owner's audit records land in the bucket: `audit/<owner>/`, then the day they arrived (UTC). */
export function archivePrefix(owner: string): string {
  return `audit/${owner}/`;
}

/** Where Firehose puts what it could not process or deliver: `audit-errors/<owner>/`, then why, then the day. */
export function archiveErrorPrefix(owner: string): string {
  return `audit-errors/${owner}/`;
}

/**
 * The audit archive (docs/operations.md, "Audit records"): a subscription filter (`{ $.record = "audit" }`) on
 * each log group that holds audit records, into one Amazon Data Firehose stream per owner that
 * decompresses what CloudWatch Logs sends, keeps only each log event's message (the audit line
 * itself), ends each record with a newline, and writes the lines to S3 under
 * `audit/<owner>/yyyy/MM/dd/`. The L1 stream, so that Firehose's role gets only the S3 actions AWS
 * documents for a destination, limited to the archive's prefixes: the L2 grants it read and write
 * of the whole bucket, deletes included.
 */
export class AuditArchive extends Construct {
  readonly bucket: s3.IBucket;
  readonly deliveryStream: firehose.CfnDeliveryStream;

  constructor(scope: Construct, id: string, props: AuditArchiveProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.bucket = props.bucket ?? this.createBucket();

    const errors = new logs.LogGroup(this, 'DeliveryErrors', { retention: props.errorLogRetention, removalPolicy: props.removalPolicy });
    const errorStream = errors.addStream('S3Delivery');
    const deliveryRole = new iam.Role(this, 'DeliveryRole', {
      assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      description: "Amazon Data Firehose's role for the audit archive: writes the archive's objects under its prefixes, nothing else.",
    });
    const prefixes = [archivePrefix(props.owner), archiveErrorPrefix(props.owner)];
    const errorStreamArn = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: `${errors.logGroupName}:log-stream:${errorStream.logStreamName}`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    archiveDeliveryStatements(this.bucket, prefixes, errorStreamArn).forEach((statement) => deliveryRole.addToPrincipalPolicy(statement));
    this.bucket.encryptionKey?.grant(deliveryRole, 'kms:GenerateDataKey', 'kms:Decrypt');
    wallOffRole(deliveryRole, props.owner);

    this.deliveryStream = new firehose.CfnDeliveryStream(this, 'Stream', {
      deliveryStreamType: 'DirectPut',
      deliveryStreamEncryptionConfigurationInput: { keyType: 'AWS_OWNED_CMK' },
      extendedS3DestinationConfiguration: {
        bucketArn: this.bucket.bucketArn,
        roleArn: deliveryRole.roleArn,
        prefix: `${archivePrefix(props.owner)}!{timestamp:yyyy/MM/dd}/`,
        errorOutputPrefix: `${archiveErrorPrefix(props.owner)}!{firehose:error-output-type}/!{timestamp:yyyy/MM/dd}/`,
        bufferingHints: { intervalInSeconds: 60, sizeInMBs: 5 },
        compressionFormat: 'UNCOMPRESSED',
        processingConfiguration: {
          enabled: true,
          processors: [
            // CloudWatch Logs sends gzipped batches of log events; Firehose unpacks them itself,
            { type: 'Decompression', parameters: [{ parameterName: 'CompressionFormat', parameterValue: 'GZIP' }] },
            // keeps each event's message only (the audit line, without the batch's envelope),
            { type: 'CloudWatchLogProcessing', parameters: [{ parameterName: 'DataMessageExtraction', parameterValue: 'true' }] },
            // and ends each record with a newline, so that the objects hold one record per line.
            { type: 'AppendDelimiterToRecord' },
          ],
        },
        cloudWatchLoggingOptions: { enabled: true, logGroupName: errors.logGroupName, logStreamName: errorStream.logStreamName },
      },
    });
    // Firehose checks that it may write to the bucket when the stream is created.
    this.deliveryStream.node.addDependency(deliveryRole);

    const subscriptionRole = new iam.Role(this, 'SubscriptionRole', {
      assumedBy: new iam.ServicePrincipal('logs.amazonaws.com', {
        conditions: { StringLike: { 'aws:SourceArn': stack.formatArn({ service: 'logs', resource: '*' }) } },
      }),
      description: "CloudWatch Logs' role for the audit archive's subscription filters: puts records on the archive's stream, nothing else.",
    });
    subscriptionRole.addToPrincipalPolicy(archiveSubscriptionStatement(this.deliveryStream.attrArn));
    wallOffRole(subscriptionRole, props.owner);
    const destination = new destinations.FirehoseDestination(
      firehose.DeliveryStream.fromDeliveryStreamArn(this, 'StreamRef', this.deliveryStream.attrArn),
      { role: subscriptionRole },
    );
    for (const { part, logGroup } of props.logGroups) {
      new logs.SubscriptionFilter(this, `${part}Subscription`, {
        logGroup,
        destination,
        filterPattern: logs.FilterPattern.literal(AUDIT_FILTER_PATTERN),
      });
    }

    const policy = deliveryRole.node.findChild('DefaultPolicy');
    for (const prefix of prefixes) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${flattenReference(stack.resolve(this.bucket.arnForObjects(`${prefix}*`)))}]`,
        reason:
          "Firehose names each object when it writes it: the role may write objects under the archive's two prefixes " +
          '(`audit/<owner>/*`, `audit-errors/<owner>/*`) only, never delete one, and reaches no other key of the bucket.',
      });
    }
  }

  private createBucket(): s3.Bucket {
    const bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only Firehose writes to the audit archive, under a role that cannot delete; versioning keeps every object. ' +
        'Server access logs need a second bucket: pass your own `auditArchive.bucket` with them (or CloudTrail data events) where policy asks for a record of reads.',
    });
    return bucket;
  }
}

/**
 * A resolved CloudFormation value as cdk-nag names it in a finding (`<Bucket1234.Arn>/audit/o/*`):
 * what an acknowledgement of a finding on a resource built from a token must spell.
 */
function flattenReference(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/}/g, '>');
  const node = value as Record<string, any>;
  if (node?.['Fn::Join']) {
    const [delimiter, items] = node['Fn::Join'] as [string, unknown[]];
    return items.map(flattenReference).join(delimiter);
  }
  if (node?.['Fn::Sub']) return flattenReference(node['Fn::Sub']);
  if (node?.['Fn::GetAtt']) {
    const [resource, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
    return `<${flattenReference(resource)}.${flattenReference(attribute)}>`;
  }
  if (node?.['Fn::ImportValue']) return flattenReference(node['Fn::ImportValue']);
  if (node?.Ref) return `<${flattenReference(node.Ref)}>`;
  return JSON.stringify(value);
}

import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { APPROVAL_ATTRIBUTES as A, DECISION_ATTRIBUTES as D, TABLE } from '../lambda/names';
import { DEFAULTS } from './defaults';
import { fail } from './validation';

export interface AutoResumeOptions {
  readonly table: dynamodb.ITable;
  readonly queue: sqs.IQueue;
  readonly fifo: boolean;
  /** Only approvals of this owner are resumed (set when the table is shared). @default - any */
  readonly owner?: string;
  readonly encryptionKey?: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The resume filter: only the stream record of the write that added `decision` to an approval item
 * (and, on a shared table, of this handler's own approvals). `exists` matches leaf values only,
 * hence the `S` level.
 */
export function decisionFilter(owner?: string): object {
  return {
    eventName: ['MODIFY'],
    dynamodb: {
      Keys: { [TABLE.partitionKey]: { S: [{ prefix: TABLE.approvalKeyPrefix }] } },
      OldImage: { [D.decision]: { S: [{ exists: false }] } },
      NewImage: {
        [D.decision]: { S: [{ exists: true }] },
        ...(owner === undefined ? {} : { [A.owner]: { S: [owner] } }),
      },
    },
  };
}

/** What the pipe puts on the tool queue: the resume envelope `{"approval_id": ...}`. */
export const RESUME_INPUT_TEMPLATE = `{"approval_id": "<$.dynamodb.NewImage.${A.approvalId}.S>"}`;
const APPROVAL_ID_PATH = `$.dynamodb.NewImage.${A.approvalId}.S`;

/**
 * Every decision, approved or denied, puts one resume envelope on the tool queue: the
 * approvals table's stream into an EventBridge pipe (L1: aws-pipes has no stable L2 in aws-cdk-lib)
 * with its own role, limited to that stream and that queue, and a standard dead-letter queue for
 * records it cannot deliver.
 */
export class AutoResume extends Construct {
  readonly pipe: pipes.CfnPipe;
  readonly deadLetterQueue: sqs.Queue;
  /** The pipe's role: reads the stream, sends to the tool queue and the dead-letter queue. */
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, options: AutoResumeOptions) {
    super(scope, id);
    const streamArn = options.table.tableStreamArn;
    if (!streamArn) {
      fail(
        '`approvalsTable` has no stream, which `autoResume` needs: create the table with ' +
          '`stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES` (or import it with its `tableStreamArn`), or set `autoResume: false`.',
        scope,
      );
    }
    checkStreamView(scope, options.table);

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: options.encryptionKey ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: options.encryptionKey,
      enforceSSL: true,
      retentionPeriod: DEFAULTS.deadLetterRetention,
      removalPolicy: options.removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue: the resume pipe\'s, for stream records it could not deliver.',
    });

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com'),
      description: 'Resumes decided approvals: reads the approvals table stream, sends to the tool queue, nothing else.',
    });
    const role = this.role;
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        resources: [streamArn],
      }),
    );
    options.queue.grantSendMessages(role);
    this.deadLetterQueue.grantSendMessages(role);

    this.pipe = new pipes.CfnPipe(this, 'Pipe', {
      description: 'cdk-tool-handler: puts a resume envelope on the tool queue for every decided approval.',
      roleArn: role.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: 10,
          maximumRetryAttempts: 10,
          maximumRecordAgeInSeconds: Duration.days(1).toSeconds(),
          deadLetterConfig: { arn: this.deadLetterQueue.queueArn },
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(decisionFilter(options.owner)) }] },
      },
      target: options.queue.queueArn,
      targetParameters: {
        inputTemplate: RESUME_INPUT_TEMPLATE,
        ...(options.fifo
          ? { sqsQueueParameters: { messageGroupId: APPROVAL_ID_PATH, messageDeduplicationId: APPROVAL_ID_PATH } }
          : {}),
      },
    });
    this.pipe.node.addDependency(role);
  }
}

/** A table of this app must stream new and old images: the filter reads both. */
function checkStreamView(scope: Construct, table: dynamodb.ITable): void {
  if (!(table instanceof dynamodb.Table)) return;
  const spec = (table.node.defaultChild as dynamodb.CfnTable).streamSpecification as dynamodb.CfnTable.StreamSpecificationProperty | undefined;
  const view = spec?.streamViewType;
  if (view !== undefined && typeof view === 'string' && view !== dynamodb.StreamViewType.NEW_AND_OLD_IMAGES) {
    fail(
      `\`approvalsTable\`'s stream must show new and old images for \`autoResume\`, got: ${view}. ` +
        'Use `stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES`, or set `autoResume: false`.',
      scope,
    );
  }
}

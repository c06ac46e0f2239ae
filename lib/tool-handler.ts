import { Annotations, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../lambda/names';
import { checkGivenTable, createApprovalsTable } from './approvals-table';
import { DEFAULTS } from './defaults';
import { ToolEventSourceOptions } from './event-source-options';
import { createHandlerFunction } from './handler-function';
import { grantDecide, grantReadApprovals, handlerTableStatements } from './permissions';
import { allowEventBridgeToUseKey, checkGivenQueue, createEventDeadLetterQueue, createToolQueues } from './queues';
import { patternAvoidingReplies } from './reply-loop';
import { ToolHandlerProps } from './tool-handler-props';
import { atPath, isFifo, resolveSettings, Settings, validateEventSource } from './validation';

/**
 * Runs AI-agent tool calls on AWS Lambda: a NodejsFunction over your tools module, fed by an SQS
 * queue (partial batch responses), by EventBridge rules and by direct invokes, with human approvals
 * kept in a DynamoDB table, and only the permissions each part needs.
 *
 * @example
 * const tools = new ToolHandler(this, 'Tools', {
 *   entry: path.join(__dirname, 'tools.ts'),
 *   tools: ['add', 'refund'],
 *   timeout: Duration.seconds(30),
 * });
 * tools.grantSendToolCalls(agentRole);
 * tools.grantDecide(approverRole);
 */
export class ToolHandler extends Construct {
  /** The function that runs the tools. */
  public readonly lambdaFunction: nodejs.NodejsFunction;

  /** The queue the function takes tool calls from (created, or the one given). */
  public readonly queue: sqs.IQueue;

  /**
   * The dead-letter queue of `queue`: calls that failed `maxReceiveCount` times.
   *
   * @default - undefined when an existing queue without a known dead-letter queue was given
   */
  public readonly deadLetterQueue?: sqs.IQueue;

  /**
   * Where failed event-borne calls are kept: events that EventBridge rules could not hand to the
   * function, and asynchronous invocations that failed after Lambda's retries.
   */
  public readonly eventDeadLetterQueue: sqs.IQueue;

  /** The approvals table (created, or the one given). */
  public readonly approvalsTable: dynamodb.ITable;

  private readonly settings: Settings;
  private readonly props: ToolHandlerProps;
  private readonly ruleList: events.Rule[] = [];
  private eventSourcesScope?: Construct;
  private eventKeyAllowed = false;

  constructor(scope: Construct, id: string, props: ToolHandlerProps) {
    super(scope, id);
    this.props = props;
    this.settings = atPath(this, () => resolveSettings(props));
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    if (this.settings.marginSeconds === 0) {
      Annotations.of(this).addWarningV2(
        'cdk-tool-handler:marginZero',
        '`margin` is 0 s: a tool may run until Lambda stops the function, leaving no time to report its result.',
      );
    }

    if (props.approvalsTable) checkGivenTable(this, props.approvalsTable);
    this.approvalsTable =
      props.approvalsTable ??
      createApprovalsTable(this, 'ApprovalsTable', { encryptionKey: props.encryptionKey, removalPolicy });

    const recommendedVisibility =
      DEFAULTS.visibilityTimeoutFactor * this.settings.functionTimeoutSeconds + this.settings.batchingWindowSeconds;
    if (props.queue) {
      checkGivenQueue(this, props.queue, this.settings.functionTimeoutSeconds, recommendedVisibility);
      this.queue = props.queue;
      this.deadLetterQueue = props.queue instanceof sqs.Queue ? props.queue.deadLetterQueue?.queue : undefined;
    } else {
      const created = createToolQueues(this, {
        fifo: isFifo(props),
        maxReceiveCount: props.maxReceiveCount ?? DEFAULTS.maxReceiveCount,
        visibilityTimeout: Duration.seconds(recommendedVisibility),
        encryptionKey: props.encryptionKey,
        removalPolicy,
      });
      this.queue = created.queue;
      this.deadLetterQueue = created.deadLetterQueue;
    }
    this.eventDeadLetterQueue = createEventDeadLetterQueue(this, props.encryptionKey, removalPolicy);
    Validations.of(this.eventDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the EventBridge rule targets\' DLQ and the function\'s asynchronous ' +
        'on-failure destination, neither of which cdk-nag recognises as a DLQ.',
    });

    this.lambdaFunction = createHandlerFunction(this, props, {
      functionTimeoutSeconds: this.settings.functionTimeoutSeconds,
      toolEnvironment: this.toolEnvironment(),
      removalPolicy,
      onFailureQueue: this.eventDeadLetterQueue,
    });
    this.lambdaFunction.addEventSource(
      new sources.SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? DEFAULTS.batchSize,
        maxBatchingWindow: props.maxBatchingWindow,
        maxConcurrency: props.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    for (const statement of handlerTableStatements(this.approvalsTable)) {
      this.lambdaFunction.addToRolePolicy(statement);
    }
    this.tableKey()?.grantEncryptDecrypt(this.lambdaFunction);
    props.replyBus?.grantPutEventsTo(this.lambdaFunction);
    this.acknowledgeFunctionFindings();

    (props.eventSources ?? []).forEach((options, index) =>
      this.createRule(`EventSource${index}`, `eventSources[${index}]`, options),
    );
  }

  /** The EventBridge rules that feed the function, in the order they were added. */
  public get rules(): events.IRule[] {
    return [...this.ruleList];
  }

  /**
   * Adds an EventBridge rule whose matching events are tool calls (each event's `detail` is one
   * envelope). The rule's construct id is `EventSources/<id>`.
   */
  public addEventSource(id: string, options: ToolEventSourceOptions): events.Rule {
    return this.createRule(id, `addEventSource(${JSON.stringify(id)})`, options);
  }

  /** Lets `grantee` send tool calls to the queue (`sqs:SendMessage`, and the key if any). */
  public grantSendToolCalls(grantee: iam.IGrantable): iam.Grant {
    return this.queue.grantSendMessages(grantee);
  }

  /**
   * Lets `grantee` invoke the function directly (`lambda:InvokeFunction` on the function itself, not on
   * its versions or aliases). A principal without a policy of its own (a service) gets a Lambda
   * permission instead.
   */
  public grantInvoke(grantee: iam.IGrantable): iam.Grant {
    const grant = iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:InvokeFunction'],
      resourceArns: [this.lambdaFunction.functionArn],
    });
    return grant.success ? grant : this.lambdaFunction.grantInvoke(grantee);
  }

  /**
   * Lets `grantee` read approvals and decide them.
   *
   * That is GetItem of approval items, Scan of the table (to list pending approvals), and UpdateItem
   * of approval items that names only the decision attributes (`decision`, `decidedBy`, `decidedAt`,
   * `reason`, `decidedFingerprint`), `fingerprint` (decide copies it into `decidedFingerprint`) and
   * what decide's condition reads (the key, `expiresAt`, `claimedUntil`); and encrypt and decrypt
   * with the table's key, if it has one.
   *
   * IAM cannot let a request read an attribute without letting it write it, so the grantee could also
   * write `fingerprint`, `expiresAt` and `claimedUntil`. It cannot change what an approval runs
   * (`tool`, `args`, `owner`), and a resume runs only args whose fingerprint matches the
   * `decidedFingerprint` of the decision.
   *
   * A Scan has no partition key for IAM to limit, so it reads call items (`call#...`, the kept replies
   * of every tool) as well as approvals.
   */
  public grantDecide(grantee: iam.IGrantable): iam.Grant {
    return grantDecide(grantee, this.approvalsTable, this.tableKey());
  }

  /**
   * Lets `grantee` read approvals.
   *
   * That is GetItem of approval items and Scan of the table (the operators' `list`), and decrypt with
   * the table's key, if it has one.
   *
   * A Scan has no partition key for IAM to limit, so it reads call items (`call#...`, the kept replies
   * of every tool) as well as approvals.
   */
  public grantReadApprovals(grantee: iam.IGrantable): iam.Grant {
    return grantReadApprovals(grantee, this.approvalsTable, this.tableKey());
  }

  /**
   * The key that encrypts the approvals table: the table's own (a created table's is `encryptionKey`),
   * or else `encryptionKey`, which then names the key of an existing table that does not show one.
   */
  private tableKey(): kms.IKey | undefined {
    return this.approvalsTable.encryptionKey ?? this.props.encryptionKey;
  }

  private toolEnvironment(): { [key: string]: string } {
    return {
      [ENV.tools]: this.props.tools.join(','),
      [ENV.timeoutSeconds]: String(this.settings.timeoutSeconds),
      [ENV.marginSeconds]: String(this.settings.marginSeconds),
      [ENV.approvalsTable]: this.approvalsTable.tableName,
      [ENV.approvalTtlSeconds]: String(this.settings.approvalTtlSeconds),
      ...(this.props.replyBus ? { [ENV.replyBus]: this.props.replyBus.eventBusArn } : {}),
    };
  }

  private createRule(id: string, label: string, options: ToolEventSourceOptions): events.Rule {
    atPath(this, () => validateEventSource(label, options));
    this.eventSourcesScope ??= new Construct(this, 'EventSources');
    if (this.props.encryptionKey && !this.eventKeyAllowed) {
      allowEventBridgeToUseKey(this, this.props.encryptionKey);
      this.eventKeyAllowed = true;
    }
    const rule = new events.Rule(this.eventSourcesScope, id, {
      eventBus: options.eventBus,
      eventPattern: patternAvoidingReplies(this, label, options.eventPattern, options.eventBus, this.props.replyBus),
      ruleName: options.ruleName,
      description: options.description,
      enabled: options.enabled,
    });
    rule.addTarget(
      new targets.LambdaFunction(this.lambdaFunction, {
        deadLetterQueue: this.eventDeadLetterQueue,
        retryAttempts: options.retryAttempts ?? DEFAULTS.ruleRetryAttempts,
        maxEventAge: options.maxEventAge ?? DEFAULTS.ruleMaxEventAge,
      }),
    );
    this.ruleList.push(rule);
    return rule;
  }

  /**
   * AWS Solutions findings that follow from what this construct must do, acknowledged where they
   * arise, with the reason. Anything else is left for the user's checks to report.
   */
  private acknowledgeFunctionFindings(): void {
    const policy = this.lambdaFunction.role?.node.tryFindChild('DefaultPolicy');
    if (!policy) return;
    const acknowledge = (id: string, reason: string) => Validations.of(policy).acknowledge({ id, reason });
    const keys = [this.props.encryptionKey, this.approvalsTable.encryptionKey, this.queue.encryptionMasterKey];
    if (keys.some((key) => key !== undefined)) {
      const reason =
        'kms:GenerateDataKey* and kms:ReEncrypt* are what the CDK grants (grantEncryptDecrypt, grantSendMessages) give ' +
        'a principal that writes an SQS queue or DynamoDB table encrypted with a customer managed key; the resource ' +
        'is the one key, not a wildcard.';
      acknowledge('AwsSolutions-IAM5[Action::kms:GenerateDataKey*]', reason);
      acknowledge('AwsSolutions-IAM5[Action::kms:ReEncrypt*]', reason);
    }
    if (this.props.tracing === lambda.Tracing.ACTIVE || this.props.tracing === lambda.Tracing.PASS_THROUGH) {
      acknowledge(
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray PutTraceSegments and PutTelemetryRecords do not support resource-level permissions.',
      );
    }
  }
}

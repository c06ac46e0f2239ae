import { Annotations, Duration, Names, RemovalPolicy, Tags, Validations } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { ENV } from '../lambda/names';
import { checkGivenTable, createApprovalsTable } from './approvals-table';
import { ApprovalsService } from './approvals-service';
import { addResumeRule, ApprovalsResumePath } from './auto-resume';
import { ExpirySchedule } from './expiry';
import { ApprovalNotifications } from './notifications';
import { DEFAULTS } from './defaults';
import { ToolEventSourceOptions } from './event-source-options';
import { checkEsbuild } from './esbuild-check';
import { AddToGatewayOptions } from './gateway-options';
import { createGatewayTarget } from './gateway-target';
import { createHandlerFunction } from './handler-function';
import { createInvokeTask, FINAL_TOOL_ERRORS, RETRYABLE_TOOL_ERRORS } from './invoke-task';
import { ToolInvokeTaskProps } from './invoke-task-props';
import { ManifestTool } from './manifest-reader';
import { readToolManifest, toManifestEntry } from './read-tool-manifest';
import { ToolManifestEntry } from './tool-manifest';
import { grantReadApprovals, handlerInvokeDenials, handlerTableStatements, putRepliesStatement } from './permissions';
import { guardReplyBus } from './reply-bus-guard';
import { PUBLISHER_TAG } from './tags';
import { allowEventBridgeToUseKey, checkGivenQueue, createEventDeadLetterQueue, createToolQueues } from './queues';
import { patternAvoidingReplies } from './reply-loop';
import { ToolHandlerProps } from './tool-handler-props';
import { atPath, fail, isFifo, resolveSettings, Settings, validateEventSource } from './validation';

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
 * tools.grantApprove(approverRole);
 */
export class ToolHandler extends Construct {
  /**
   * Errors of a call that a retry can fix, by name: what `invokeTask` retries. Lambda's service
   * exceptions are retried by `LambdaInvoke` itself.
   */
  public static readonly RETRYABLE_ERRORS: string[] = [...RETRYABLE_TOOL_ERRORS];

  /**
   * Errors of a call that retrying cannot fix, by name: `invokeTask` does not retry them, so a state
   * machine can `Catch` them (`ApprovalDenied`, `ToolNotFound`, ...).
   */
  public static readonly FINAL_ERRORS: string[] = [...FINAL_TOOL_ERRORS];

  /**
   * A Step Functions task that invokes `props.toolHandler` with an envelope (a direct invoke).
   * Its result is the reply; it retries the retryable errors by name (`RETRYABLE_ERRORS`) and not the
   * others, so a state machine can `Catch` `ApprovalDenied` or `ToolNotFound`.
   */
  public static invokeTask(scope: Construct, id: string, props: ToolInvokeTaskProps): tasks.LambdaInvoke {
    return createInvokeTask(scope, id, props);
  }

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

  /**
   * The approvals engine: the only function that creates, claims and completes approvals. Only the
   * tool handler may invoke it.
   */
  public readonly approvalsEngine: lambda.IFunction;

  /** The approvals API function, reachable through `approvalsApiUrl` only (`grantApprove`). */
  public readonly approvalsApi: lambda.IFunction;

  /** The URL of the approvals API (a function URL with AWS_IAM auth); also a stack output. */
  public readonly approvalsApiUrl: string;

  /**
   * Whose approvals and calls this handler's are: its key space in the approvals table
   * (`TOOL_HANDLER_OWNER` on each of its functions).
   */
  public readonly owner: string;

  /**
   * The bus on which the table's resume path announces decided approvals (`{ approval_id, owner }`):
   * pass it as `approvalsResumeBus` to a handler of another app that shares the table.
   *
   * @default - undefined when `autoResume` is off
   */
  public readonly approvalsResumeBus?: events.IEventBus;

  /**
   * The tools of the module, read from its bundle at synth: every tool it defines, allowlisted
   * or not.
   *
   * @default - undefined when no bundle was read: bundling skipped for this stack
   * (`aws:cdk:bundling-stacks`), or the context key `cdk-tool-handler:skipManifest` set
   */
  public readonly toolManifest?: ToolManifestEntry[];

  private readonly manifestTools?: ManifestTool[];

  private readonly settings: Settings;
  private readonly props: ToolHandlerProps;
  private readonly ruleList: events.Rule[] = [];
  private eventSourcesScope?: Construct;
  private eventKeyAllowed = false;
  private gatewayTargets = 0;

  constructor(scope: Construct, id: string, props: ToolHandlerProps) {
    super(scope, id);
    this.props = props;
    this.settings = atPath(this, () => resolveSettings(props));
    checkEsbuild(this, props);
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

    // Handlers sharing a table each keep to their own key space.
    const owner = props.owner ?? Names.uniqueResourceName(this, { maxLength: 64 });
    this.owner = owner;
    const service = new ApprovalsService(this, 'Approvals', {
      table: this.approvalsTable,
      tools: props.tools,
      owner,
      approvalTtlSeconds: this.settings.approvalTtlSeconds,
      handlerTimeoutSeconds: this.settings.functionTimeoutSeconds,
      runtime: props.runtime,
      architecture: props.architecture,
      logRetention: props.logRetention,
      replyBus: props.replyBus,
      removalPolicy,
    });
    new ExpirySchedule(this, 'Expiry', { expirer: service.expirer, replyBus: props.replyBus });
    this.approvalsEngine = service.engine;
    this.approvalsApi = service.api;
    this.approvalsApiUrl = service.apiUrl.url;

    this.lambdaFunction = createHandlerFunction(this, props, {
      functionTimeoutSeconds: this.settings.functionTimeoutSeconds,
      toolEnvironment: this.toolEnvironment(service.engine.functionName, owner),
      removalPolicy,
      onFailureQueue: this.eventDeadLetterQueue,
    });
    this.manifestTools = readToolManifest(this, this.lambdaFunction, props);
    this.toolManifest = this.manifestTools?.map(toManifestEntry);
    this.lambdaFunction.addEventSource(
      new sources.SqsEventSource(this.queue, {
        batchSize: props.batchSize ?? DEFAULTS.batchSize,
        maxBatchingWindow: props.maxBatchingWindow,
        maxConcurrency: props.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    for (const statement of [...handlerTableStatements(this.approvalsTable, owner), ...handlerInvokeDenials(owner)]) {
      this.lambdaFunction.addToRolePolicy(statement);
    }
    // The engine itself, not its versions (the construct publishes none): no wildcard.
    this.lambdaFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [service.engine.functionArn] }),
    );
    const key = this.tableKey();
    for (const fn of [this.lambdaFunction, service.engine, service.api, service.expirer]) key?.grantEncryptDecrypt(fn);
    if (props.replyBus) {
      this.lambdaFunction.addToRolePolicy(putRepliesStatement(props.replyBus));
      Tags.of(this.lambdaFunction.role!).add(PUBLISHER_TAG.key, PUBLISHER_TAG.value);
      guardReplyBus(this, props.replyBus);
    }
    let resumeRole: iam.IRole | undefined;
    if (props.autoResume ?? true) {
      let bus = props.approvalsResumeBus;
      if (!bus) {
        const path = ApprovalsResumePath.of(this, { table: this.approvalsTable, encryptionKey: props.encryptionKey, removalPolicy });
        bus = path.bus;
        resumeRole = path.role;
      }
      this.approvalsResumeBus = bus;
      addResumeRule(this, 'ResumeRule', {
        bus,
        owner,
        queue: this.queue,
        fifo: isFifo(props),
        deadLetterQueue: this.eventDeadLetterQueue,
      });
      this.allowEventBridgeToUseKeys();
      // A given queue's own key, too: the resume rule sends to that queue.
      const queueKey = this.queue.encryptionMasterKey;
      if (queueKey && queueKey !== props.encryptionKey) allowEventBridgeToUseKey(this, queueKey);
    }
    if (props.approvalNotifications) {
      if (!props.replyBus) {
        fail('`approvalNotifications` needs `replyBus`: the notifications are made from the reply bus\'s events; set both, or neither.', this);
      }
      new ApprovalNotifications(this, 'ApprovalNotifications', {
        replyBus: props.replyBus,
        topic: props.approvalNotifications,
        withArgs: props.notifyWithArgs ?? false,
        deadLetterQueue: this.eventDeadLetterQueue,
        apiUrlOutput: service.apiUrlOutput,
      });
    }
    this.acknowledgeFunctionFindings([service.expirer.role, resumeRole]);

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

  /**
   * Adds a Lambda target for this handler to an AgentCore Gateway. Its inline tool schema lists
   * the allowlisted tools, with their input schemas reduced to what AgentCore accepts (see README);
   * the gateway's role gets `lambda:InvokeFunction` on the function. The construct id of the target
   * is `GatewayTarget` (then `GatewayTarget2`, ... for more gateways).
   */
  public addToGateway(gateway: agentcore.IGateway, options: AddToGatewayOptions = {}): agentcore.GatewayTarget {
    this.gatewayTargets++;
    const id = this.gatewayTargets === 1 ? 'GatewayTarget' : `GatewayTarget${this.gatewayTargets}`;
    return createGatewayTarget(this, id, {
      gateway,
      lambdaFunction: this.lambdaFunction,
      allowlist: this.props.tools,
      manifest: this.manifestTools,
      options,
    });
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
   * Lets `grantee` use the approvals API (list, read and decide) through its function URL, and only
   * through it: `lambda:InvokeFunctionUrl` with `lambda:FunctionUrlAuthType` `AWS_IAM`, and
   * `lambda:InvokeFunction` only with `lambda:InvokedViaFunctionUrl` (so the grantee cannot invoke
   * the API directly with a made-up identity). The API records the grantee's principal as the decider.
   */
  public grantApprove(grantee: iam.IGrantable): iam.Grant {
    return this.approvalsApi.grantInvokeUrl(grantee);
  }

  /**
   * Lets `grantee` read this handler's approvals, and nothing else: GetItem of its owner's approval
   * items (`approval#<owner>#...`) and Query of its owner's partition of the two approval indexes
   * (which hold approval items only, never the call items that keep every tool's reply), and decrypt
   * with the table's key, if it has one. No write of any kind, no Scan, no other owner's approvals.
   */
  public grantReadApprovals(grantee: iam.IGrantable): iam.Grant {
    return grantReadApprovals(grantee, this.approvalsTable, this.owner, this.tableKey());
  }

  /**
   * The key that encrypts the approvals table: the table's own (a created table's is `encryptionKey`),
   * or else `encryptionKey`, which then names the key of an existing table that does not show one.
   */
  private tableKey(): kms.IKey | undefined {
    return this.approvalsTable.encryptionKey ?? this.props.encryptionKey;
  }

  private toolEnvironment(engineName: string, owner: string): { [key: string]: string } {
    return {
      [ENV.tools]: this.props.tools.join(','),
      [ENV.timeoutSeconds]: String(this.settings.timeoutSeconds),
      [ENV.marginSeconds]: String(this.settings.marginSeconds),
      [ENV.approvalsTable]: this.approvalsTable.tableName,
      [ENV.approvalsEngine]: engineName,
      [ENV.owner]: owner,
      ...(this.props.notifyWithArgs && this.props.approvalNotifications ? { [ENV.notifyWithArgs]: 'true' } : {}),
      [ENV.approvalTtlSeconds]: String(this.settings.approvalTtlSeconds),
      ...(this.props.replyBus ? { [ENV.replyBus]: this.props.replyBus.eventBusArn } : {}),
    };
  }

  private createRule(id: string, label: string, options: ToolEventSourceOptions): events.Rule {
    atPath(this, () => validateEventSource(label, options));
    this.eventSourcesScope ??= new Construct(this, 'EventSources');
    this.allowEventBridgeToUseKeys();
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

  /** EventBridge writes to the queues `encryptionKey` encrypts (rules' targets and dead-letter queue): once. */
  private allowEventBridgeToUseKeys(): void {
    if (!this.props.encryptionKey || this.eventKeyAllowed) return;
    allowEventBridgeToUseKey(this, this.props.encryptionKey);
    this.eventKeyAllowed = true;
  }

  /**
   * AWS Solutions findings that follow from what this construct must do, acknowledged where they
   * arise, with the reason. Anything else is left for the user's checks to report.
   */
  private acknowledgeFunctionFindings(moreRoles: Array<iam.IRole | undefined>): void {
    const keys = [this.props.encryptionKey, this.approvalsTable.encryptionKey, this.queue.encryptionMasterKey];
    const keyReason =
      'kms:GenerateDataKey* and kms:ReEncrypt* are what the CDK grants (grantEncryptDecrypt, grantSendMessages) give ' +
      'a principal that writes an SQS queue or DynamoDB table encrypted with a customer managed key; the resource ' +
      'is the one key, not a wildcard.';
    const roles = [this.lambdaFunction, this.approvalsEngine, this.approvalsApi].map((fn) => fn.role).concat(moreRoles);
    for (const role of roles) {
      const policy = role?.node.tryFindChild('DefaultPolicy');
      if (!policy) continue;
      const acknowledge = (id: string, reason: string) => Validations.of(policy).acknowledge({ id, reason });
      if (keys.some((key) => key !== undefined)) {
        acknowledge('AwsSolutions-IAM5[Action::kms:GenerateDataKey*]', keyReason);
        acknowledge('AwsSolutions-IAM5[Action::kms:ReEncrypt*]', keyReason);
      }
      if (role === this.lambdaFunction.role && (this.props.tracing === lambda.Tracing.ACTIVE || this.props.tracing === lambda.Tracing.PASS_THROUGH)) {
        acknowledge(
          'AwsSolutions-IAM5[Resource::*]',
          'X-Ray PutTraceSegments and PutTelemetryRecords do not support resource-level permissions.',
        );
      }
    }
  }
}

import { Names, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as bedrock from 'aws-cdk-lib/aws-bedrock';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { acknowledgeRoleFindings } from './permissions/acknowledgements';
import { approvalsTableFor } from './approvals/approvals-table';
import { AuditArchive } from './audit/audit-archive';
import { ResultOffload } from './results/result-offload';
import { fail } from './errors';
import { logRetentionOf } from './audit/audit-retention';
import { ApprovalsService } from './approvals/approvals-service';
import { resumeDecisions } from './approvals/auto-resume';
import { addBedrockActionGroup, bedrockFunctionSchema } from './hosts/bedrock-agent';
import { AddToBedrockAgentOptions } from './options/bedrock-agent-options';
import { ToolEventSourceOptions } from './options/event-source-options';
import { addQueueSource, checkedEventSource, EventSourceRules } from './hosts/event-sources';
import { ExpirySchedule } from './approvals/expiry';
import { AddToGatewayOptions } from './options/gateway-options';
import { createGatewayTarget } from './hosts/gateway-target';
import { createHandlerFunction } from './bundling/handler-function';
import { createInvokeTask, FINAL_TOOL_ERRORS, RETRYABLE_TOOL_ERRORS } from './hosts/invoke-task';
import { ToolInvokeTaskProps } from './options/invoke-task-props';
import { allowDurableCallbacks, allowTaskResponses, createWaitForResult, expressWaiters } from './hosts/flows';
import { WaitForResultProps } from './options/wait-for-result-props';
import { notifyApprovers } from './approvals/notifications';
import { addOperations, HandlerMetrics, operationsSettings } from './operations';
import { grantInvokeHandler, grantReadApprovals, handlerStatements } from './permissions';
import { grantReadAudit } from './permissions/audit';
import { toolQueuesFor } from './hosts/queues';
import { readToolManifest } from './bundling/read-tool-manifest';
import { publishReplies } from './replies/reply-bus';
import { replyEventSource } from '../lambda/construct-contract';
import { allowlistOf } from './allowlist';
import { IToolHandler } from './tool-handler-ref';
import { ToolHandlerProps } from './tool-handler-props';
import type { ToolManifestEntry } from '../lambda/construct-contract';
import { checkedSettings, isFifo, Settings } from './validation';
import { describeParts } from './parts-metadata';

/**
 * Runs AI-agent tool calls on AWS Lambda: a NodejsFunction over your tools module, fed by an SQS
 * queue (partial batch responses), by EventBridge rules and by direct invokes, with human approvals
 * kept in a DynamoDB table, and only the permissions each part needs.
 *
 * @example
 * const tools = new ToolHandler(this, 'Tools', {
 *   entry: path.join(__dirname, 'tools.ts'),
 *   allowedTools: ['add', 'refund'],
 *   timeout: Duration.seconds(30),
 * });
 * tools.grantSendToolCalls(agentRole);
 * tools.grantApprove(approverRole);
 */
export class ToolHandler extends Construct implements IToolHandler {
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

  /** The function that runs the tools (a `NodejsFunction` over `entry`). */
  public readonly lambdaFunction: lambda.IFunction;

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
   * The source of this handler's reply-bus events, `cdk-tool-handler.<owner>`: match it in a rule
   * for this handler's replies and notifications only (every owner's: the prefix
   * `cdk-tool-handler.`). Only this handler's and its expirer's roles may publish it.
   */
  public readonly replyEventSource: string;

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

  /**
   * The alarms that ask a person to act (docs/operations.md), each named for what to do.
   *
   * @default - none when `alarms` is false
   */
  public readonly alarms: cloudwatch.Alarm[];

  /**
   * The handler's CloudWatch dashboard.
   *
   * @default - undefined unless `dashboard` is true
   */
  public readonly dashboard?: cloudwatch.Dashboard;

  /**
   * The log groups that hold the audit records (docs/operations.md, "Audit records"): the handler function's
   * (one per call), the approvals API's (one per decision) and the expirer's (one per expiry), in
   * that order. Their retention is the longer of `logRetention` and `auditRetention`.
   */
  public readonly auditLogGroups: logs.ILogGroup[];

  /**
   * The bucket of the audit archive: the given `auditArchive.bucket`, or the one created.
   *
   * @default - undefined when `auditArchive` is not set
   */
  public readonly auditArchiveBucket?: s3.IBucket;

  /**
   * The bucket of offloaded results: the given `resultOffload.bucket`, or the one created.
   *
   * @default - undefined when `resultOffload` is not set
   */
  public readonly resultBucket?: s3.IBucket;

  private readonly resultOffload?: ResultOffload;

  private readonly manifestTools?: ToolManifestEntry[];
  private readonly metrics: HandlerMetrics;
  private readonly props: ToolHandlerProps;
  private readonly eventSources: EventSourceRules;
  private readonly settings: Settings;
  /** Who completes a waiting flow: the function, and the expirer (an approval that expired). */
  private readonly flowCompleters: iam.IGrantable[];
  /** How many constructs of each base id `nextId` has named. */
  private readonly idCounts = new Map<string, number>();

  constructor(scope: Construct, id: string, props: ToolHandlerProps) {
    super(scope, id);
    this.props = props;
    const settings = checkedSettings(this, props);
    this.settings = settings;
    const operations = operationsSettings(this, props, settings);
    const eventPatterns = (props.eventSources ?? []).map((source, i) => checkedEventSource(this, `eventSources[${i}]`, source, props.replyBus));
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.approvalsTable = approvalsTableFor(this, props, removalPolicy);
    const queues = toolQueuesFor(this, props, settings, removalPolicy);
    this.queue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
    this.eventDeadLetterQueue = queues.eventDeadLetterQueue;
    // Handlers sharing a table each keep to their own key space.
    this.owner = props.owner ?? Names.uniqueResourceName(this, { maxLength: 64 });
    const table = this.approvalsTable;
    const owner = this.owner;
    this.replyEventSource = replyEventSource(owner);

    const approvals = new ApprovalsService(this, 'Approvals', { ...props, table, owner, settings, removalPolicy });
    const expiry = new ExpirySchedule(this, 'Expiry', { expirer: approvals.expirer, replyBus: props.replyBus, owner });
    this.approvalsEngine = approvals.engine;
    this.approvalsApi = approvals.api;
    this.approvalsApiUrl = approvals.apiUrl.url;

    // Everything that checks props comes before the function, whose bundling takes seconds.
    const resume = resumeDecisions(this, {
      props, table, owner, queue: this.queue, deadLetterQueue: this.eventDeadLetterQueue, removalPolicy,
    });
    this.approvalsResumeBus = resume?.bus;
    notifyApprovers(this, props, { deadLetterQueue: this.eventDeadLetterQueue, apiUrlOutput: approvals.apiUrlOutput, owner });

    const fn = createHandlerFunction(this, props, {
      settings, table, owner, engine: approvals.engine, removalPolicy, onFailureQueue: this.eventDeadLetterQueue,
    });
    this.lambdaFunction = fn;
    this.flowCompleters = [fn, approvals.expirer];
    this.node.addValidation({ validate: () => expressWaiters(this, this.queue) });
    this.manifestTools = readToolManifest(this, fn, props);
    this.toolManifest = this.manifestTools;
    addQueueSource(fn, this.queue, props);
    handlerStatements(table, owner, approvals.engine).forEach((statement) => fn.addToRolePolicy(statement));
    const key = this.tableKey();
    for (const user of [fn, ...approvals.functions]) key?.grantEncryptDecrypt(user);
    if (props.replyBus) publishReplies(this, fn, props.replyBus, owner);
    if (props.resultOffload) {
      this.resultOffload = new ResultOffload(this, 'ResultOffload', {
        ...props.resultOffload,
        threshold: props.resultOffloadThreshold,
        owner,
        handler: fn,
      });
      this.resultBucket = this.resultOffload.bucket;
    } else if (props.resultOffloadThreshold) {
      fail('`resultOffloadThreshold` needs `resultOffload`: set `resultOffload: {}` to offload results to a bucket the construct makes.', this);
    }

    this.auditLogGroups = [fn.logGroup, approvals.api.logGroup, approvals.expirer.logGroup];
    if (props.auditArchive) {
      const [handlerLogs, apiLogs, expirerLogs] = this.auditLogGroups;
      this.auditArchiveBucket = new AuditArchive(this, 'AuditArchive', {
        ...props.auditArchive,
        owner,
        logGroups: [
          { part: 'Handler', logGroup: handlerLogs },
          { part: 'Api', logGroup: apiLogs },
          { part: 'Expirer', logGroup: expirerLogs },
        ],
        errorLogRetention: logRetentionOf(props),
        removalPolicy,
      }).bucket;
    }

    acknowledgeRoleFindings({
      handler: fn,
      otherRoles: [...approvals.functions.map((f) => f.role), resume?.path?.role],
      keys: [props.encryptionKey, table.encryptionKey, this.queue.encryptionMasterKey],
      tracing: props.tracing,
    });

    this.eventSources = new EventSourceRules(this, { lambdaFunction: fn, deadLetterQueue: this.eventDeadLetterQueue, props });
    (props.eventSources ?? []).forEach((source, i) => this.eventSources.addChecked(`EventSource${i}`, source, eventPatterns[i]));

    ({ metrics: this.metrics, alarms: this.alarms, dashboard: this.dashboard } = addOperations(this, operations, {
      owner, tools: allowlistOf(props), handler: fn, approvalFunctions: approvals.functions, expirer: approvals.expirer,
      queue: this.queue, toolDeadLetterQueue: this.deadLetterQueue, toolQueueCreated: props.queue === undefined,
      eventDeadLetterQueue: this.eventDeadLetterQueue, resumePath: resume?.path,
    }));

    describeParts(this, {
      owner, handler: fn, engine: approvals.engine, api: approvals.api, expirer: approvals.expirer, table, queue: this.queue,
      resumePipe: resume?.path?.pipe, resumeRule: resume?.rule, expirySchedule: expiry.schedule,
    });
  }

  /**
   * A Step Functions task that sends one tool call to this handler's queue and waits, without
   * polling, for its result, approval included: the task's output is the reply; a denial fails it
   * with `ToolHandler.ApprovalDenied`, an expiry with `ToolHandler.ApprovalExpired`, any other error
   * with `ToolHandler.<ErrorName>` (catch them). The state machine must be STANDARD, and given to
   * `allowTaskResponseFrom`.
   */
  public waitForResult(scope: Construct, id: string, props: WaitForResultProps): tasks.SqsSendMessage {
    return createWaitForResult(scope, id, props, {
      queue: this.queue,
      fifo: isFifo(this.props),
      approvalTtlSeconds: this.settings.approvalTtlSeconds,
    });
  }

  /**
   * Lets the handler and the expirer complete the tasks of `stateMachine` that wait for this
   * handler's results (`states:SendTaskSuccess`, `states:SendTaskFailure` on that state machine).
   * An EXPRESS state machine is refused: Express workflows cannot wait for a task token.
   */
  public allowTaskResponseFrom(stateMachine: sfn.IStateMachine): void {
    allowTaskResponses(this, stateMachine, this.flowCompleters);
  }

  /**
   * Lets the handler and the expirer complete the callbacks of a Lambda durable function that calls
   * tools with `callTool` (`cdk-tool-handler/durable`): `lambda:SendDurableExecutionCallbackSuccess`
   * and `...Failure` on that function and its versions.
   */
  public allowCallbacksFrom(durableFunction: lambda.IFunction): void {
    allowDurableCallbacks(durableFunction, this.flowCompleters);
  }

  /** The EventBridge rules that feed the function, in the order they were added. */
  public get rules(): events.IRule[] {
    return this.eventSources.rules;
  }

  /**
   * Adds an EventBridge rule whose matching events are tool calls (each event's `detail` is one
   * envelope). The rule's construct id is `EventSources/<id>`.
   */
  public addEventSource(id: string, options: ToolEventSourceOptions): events.Rule {
    return this.eventSources.add(id, `addEventSource(${JSON.stringify(id)})`, options);
  }

  /**
   * Adds a Lambda target for this handler to an AgentCore Gateway. Its inline tool schema lists
   * the allowlisted tools, with their input schemas reduced to what AgentCore accepts (see docs/hosts.md);
   * the gateway's role gets `lambda:InvokeFunction` on the function. The construct id of the target
   * is `GatewayTarget` (then `GatewayTarget2`, ... for more gateways).
   */
  public addToGateway(gateway: agentcore.IGateway, options: AddToGatewayOptions = {}): agentcore.GatewayTarget {
    return createGatewayTarget(this, this.nextId('GatewayTarget'), {
      gateway,
      lambdaFunction: this.lambdaFunction,
      allowlist: allowlistOf(this.props),
      manifest: this.manifestTools,
      options,
      owner: this.owner,
    });
  }

  /**
   * The action group's functions for Amazon Bedrock Agents (function details), from the tools
   * manifest: each allowlisted tool with its description and a parameter per top-level arg (type,
   * description, whether required). An object-typed arg becomes a string parameter holding its JSON,
   * and a tool whose name (or an arg's) Bedrock does not accept is left out, each with a synth
   * warning (`cdk-tool-handler:bedrockSchema`). `addToBedrockAgent` uses it.
   */
  public bedrockFunctionSchema(): bedrock.CfnAgent.FunctionSchemaProperty {
    return bedrockFunctionSchema(this, this.manifestTools, allowlistOf(this.props));
  }

  /**
   * Adds an action group for this handler to an Amazon Bedrock agent: its functions are
   * `bedrockFunctionSchema()`, its executor this handler's function, and the Bedrock service may
   * invoke the function for that agent only (a Lambda permission for `bedrock.amazonaws.com` with the
   * agent's ARN as source; construct id `InvokeByBedrockAgent`, then `InvokeByBedrockAgent2`, ...).
   * The agent must list its action groups as an array (or none). Returns the action group added.
   */
  public addToBedrockAgent(agent: bedrock.CfnAgent, options: AddToBedrockAgentOptions = {}): bedrock.CfnAgent.AgentActionGroupProperty {
    return addBedrockActionGroup(this, this.nextId('InvokeByBedrockAgent'), agent, this.lambdaFunction, this.bedrockFunctionSchema(), options);
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
    return grantInvokeHandler(grantee, this.lambdaFunction);
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
   * Lets `grantee` read this handler's audit records, as `cdk-tool-handler audit --stack` does:
   * `logs:FilterLogEvents` and `logs:GetLogEvents` on `auditLogGroups`, and
   * `cloudformation:GetTemplate` and `cloudformation:ListStackResources` of this stack (where the
   * command finds those log groups). Read only: no other log group, no write.
   */
  /**
   * Lets `grantee` read this handler's offloaded results (`s3:GetObject` under its owner's prefix of
   * `resultBucket`), nothing else of the bucket. Needs `resultOffload`.
   */
  public grantReadResults(grantee: iam.IGrantable): iam.Grant {
    if (!this.resultOffload) fail('`grantReadResults` needs `resultOffload`: this handler offloads no results.', this);
    return this.resultOffload.grantRead(grantee);
  }

  public grantReadAudit(grantee: iam.IGrantable): iam.Grant {
    return grantReadAudit(grantee, this.auditLogGroups, Stack.of(this));
  }

  /**
   * Calls of the handler (docs/operations.md): every call, or, with `tool`, the calls of that
   * allowlisted tool.
   *
   * @param tool a name of `allowedTools`. Default: every call, whatever tool it names
   * @param props metric options. Default: Sum over 5 minutes
   */
  public metricCalls(tool?: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.calls(tool, props);
  }

  /**
   * Failed calls: error replies and thrown errors (1 each; a call that did not fail counts 0, so the
   * Average is the failed share).
   *
   * @param tool a name of `allowedTools`. Default: every call, whatever tool it names
   * @param props metric options. Default: Sum over 5 minutes
   */
  public metricFailed(tool?: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.failed(tool, props);
  }

  /**
   * How long calls took, in milliseconds, from the envelope's arrival to its outcome.
   *
   * @param tool a name of `allowedTools`. Default: every call, whatever tool it names
   * @param props metric options. Default: Average over 5 minutes
   */
  public metricDuration(tool?: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.duration(tool, props);
  }

  /**
   * Calls refused by their tool's `rateLimit` (`RateLimited`, 1 each; absent for other calls, so the
   * Sum counts the refusals). Its alarm, if you want one, is yours: a refusal is the limit working.
   *
   * @param tool a name of `allowedTools`. Default: every call, whatever tool it names
   * @param props metric options. Default: Sum over 5 minutes
   */
  public metricRateLimited(tool?: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.rateLimited(tool, props);
  }

  /**
   * Approvals of this handler still pending, as the expirer counts them every run (every 4 minutes).
   *
   * @param props metric options. Default: Maximum over 5 minutes
   */
  public metricPendingApprovals(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.pendingApprovals(props);
  }

  /**
   * Age of the oldest pending approval, in seconds (0 when none), as the expirer finds it every run.
   *
   * @param props metric options. Default: Maximum over 5 minutes
   */
  public metricOldestPendingApprovalAge(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metrics.oldestPendingApprovalAge(props);
  }

  /** `base` the first time, then `base2`, `base3`, ...: the construct ids of repeated `addTo...` calls. */
  private nextId(base: string): string {
    const n = (this.idCounts.get(base) ?? 0) + 1;
    this.idCounts.set(base, n);
    return n === 1 ? base : `${base}${n}`;
  }

  /**
   * The key that encrypts the approvals table: the table's own (a created table's is `encryptionKey`),
   * or else `encryptionKey`, which then names the key of an existing table that does not show one.
   */
  private tableKey(): kms.IKey | undefined {
    return this.approvalsTable.encryptionKey ?? this.props.encryptionKey;
  }
}

import { Duration, RemovalPolicy, Size } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AuditArchiveOptions } from './options/audit-archive-options';
import { ResultOffloadOptions } from './options/result-offload-options';
import { ToolEventSourceOptions } from './options/event-source-options';
import { ToolHandlerAlarm } from './options/tool-handler-alarm';

/**
 * Properties of a `ToolHandler`.
 */
export interface ToolHandlerProps {
  /**
   * Path to the tools module: a TypeScript or JavaScript file that exports a Lambda handler built by
   * `toolHandler` from `cdk-tool-handler/lambda`. It is bundled with esbuild, and the bundle is loaded
   * once at synth to read its tools (`toolManifest`): keep side effects out of module load.
   */
  readonly entry: string;

  /**
   * Name of the handler that `entry` exports: a JavaScript identifier, not `file.export`. A missing
   * export, or one not built by `toolHandler`, is an error at synth.
   *
   * @default 'handler'
   */
  readonly handler?: string;

  /**
   * The allowlist: names of the tools the function may run (set as `TOOL_HANDLER_TOOLS`). Each is 1
   * to 128 characters of `A-Z a-z 0-9 _ . -`, at least one, no name twice. A tool the module defines
   * but the list leaves out is refused (`ToolNotFound`), on calls and on approval resumes alike. A
   * name the module does not define is an error at synth. Required (or, until it is removed, its
   * old name `tools`).
   *
   * @default - none: a synth error asks for it
   */
  readonly allowedTools?: string[];

  /**
   * The allowlist's old name.
   *
   * @deprecated use `allowedTools`: `tools` named both this list of names and, in the runtime, the
   * Tool objects of a module.
   * @default - `allowedTools`
   */
  readonly tools?: string[];

  /**
   * The tool budget per invocation: no tool runs longer than this (whole seconds).
   *
   * @default Duration.seconds(60)
   */
  readonly timeout?: Duration;

  /**
   * Time kept back from the Lambda deadline to report results (whole seconds, shorter than
   * `timeout`). The function's timeout is `timeout` + `margin`, at most 15 minutes.
   *
   * @default Duration.seconds(1)
   */
  readonly margin?: Duration;

  /**
   * An existing queue to take tool calls from. Its visibility timeout should be at least 6 times the
   * function timeout plus the batching window; an imported queue's cannot be checked, which adds a
   * warning.
   *
   * @default - a new queue, encrypted (`encryptionKey`, or SQS managed encryption), TLS only, with a
   * dead-letter queue
   */
  readonly queue?: sqs.IQueue;

  /**
   * How many times a message is received before the created queue moves it to its dead-letter queue
   * (1 to 1000). Only for the queue the construct creates.
   *
   * @default 5
   */
  readonly maxReceiveCount?: number;

  /**
   * Most messages handed to one invocation: at most 10 without a `maxBatchingWindow` of at least
   * 1 s, at most 10000 with one.
   *
   * @default 10
   */
  readonly batchSize?: number;

  /**
   * How long Lambda gathers messages before it invokes the function (at most 5 minutes). Not for a
   * FIFO queue.
   *
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;

  /**
   * Most concurrent invocations the queue's event source starts (2 to 1000).
   *
   * @default - no limit beyond the function's concurrency
   */
  readonly maxConcurrency?: number;

  /**
   * Whether the created queue (and its dead-letter queue) is FIFO, with content-based
   * deduplication. Calls of one `MessageGroupId` then run in order. With an existing `queue` it must
   * match that queue.
   *
   * Content-based deduplication makes two messages with the same body, sent within 5 minutes, one
   * message: two identical calls run once. To keep distinct calls distinct, give each its own
   * `run_id`/`call_id` in the envelope, or send it with a `MessageDeduplicationId`.
   *
   * @default false
   */
  readonly fifo?: boolean;

  /**
   * EventBridge rules that feed tool calls to the function. Their construct ids are
   * `EventSources/EventSource0`, `EventSource1`, ... by position; `addEventSource(id, options)` adds
   * one with an id of your own.
   *
   * A rule on the same bus as `replyBus` must not match the function's own replies (`source`
   * `cdk-tool-handler`), or each would come back in as a call: a pattern there without `source` gets
   * `source: [{ "anything-but": ["cdk-tool-handler"] }]`, and one whose `source` names
   * `cdk-tool-handler` is refused.
   *
   * @default - no rules
   */
  readonly eventSources?: ToolEventSourceOptions[];

  /**
   * An existing approvals table, which several handlers may share: each reaches only its `owner`'s
   * items. It must have a String partition key `pk`, no sort key, TTL on `deleteAt`, a stream of
   * new and old images (for `autoResume`), and two global secondary indexes projecting all
   * attributes: `pendingByOwner` (String `pendingOwner`, Number `expiresAt`) and `approvalsByOwner`
   * (String `owner`, Number `createdAt`). A table defined in this app that lacks the key, an index,
   * or the stream while `autoResume` is on is a synth error naming what to add (TTL on another
   * attribute only warns: nothing is then deleted); an imported table, whose schema cannot be seen,
   * gets a warning, and an error only without its `tableStreamArn` while `autoResume` is on. If it
   * is encrypted with a customer managed key that the table object does not carry (an imported
   * table), pass that key as `encryptionKey`.
   *
   * @default - a new table: on demand, point-in-time recovery, TTL, encrypted, retained on deletion
   */
  readonly approvalsTable?: dynamodb.ITable;

  /**
   * Who this handler's approvals and calls belong to: its key space in the approvals table
   * (`approval#<owner>#...`, `call#<owner>#...`), which IAM walls off from every other owner's.
   * 1 to 64 characters of `A-Z a-z 0-9 _ . -`, unique among the handlers sharing a table. Moving
   * the construct in the tree changes the default, which hides the approvals and kept replies made
   * under the old one: pin it when the table outlives a refactor or is shared across apps.
   *
   * @default - derived from the construct's path: unique in the app, the same on every synth
   */
  readonly owner?: string;

  /**
   * The resume bus of this table's resume path, when another app made it (that app's
   * `approvalsResumeBus`): the table's stream has one reader, whatever the number of handlers, and
   * this handler only adds its rule there.
   *
   * @default - the resume path this app makes once per table object
   */
  readonly approvalsResumeBus?: events.IEventBus;

  /**
   * How long approvals (and the kept replies of duplicate-suppressed calls) live. At least the
   * function timeout.
   *
   * @default Duration.days(7)
   */
  readonly approvalTtl?: Duration;

  /**
   * What happens to the created approvals table, log group, queue and dead-letter queues
   * (`queue`, `deadLetterQueue`, `eventDeadLetterQueue`) when they leave the stack. Retaining keeps
   * the approvals, the calls not yet run and the failed calls when the stack is deleted.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * An event bus to publish every reply and error reply to (set as `TOOL_HANDLER_REPLY_BUS`), with
   * `source` `cdk-tool-handler`. Rules of `eventSources` on this bus are kept from matching them.
   *
   * @default - no reply bus
   */
  readonly replyBus?: events.IEventBus;

  /**
   * Resume every decided approval by itself: the approvals table's stream into one EventBridge pipe
   * per table, which puts `{ approval_id, owner }` on the table's resume bus, where a rule of this
   * handler's owner puts `{"approval_id": ...}` on its tool queue, for each decision (approved or
   * denied). An existing `approvalsTable` then needs a stream of new and old images.
   *
   * @default true
   */
  readonly autoResume?: boolean;

  /**
   * A topic told of every `Tool Approval Requested` and `Tool Approval Expired` event, as a short
   * readable message with the CLI line that approves it. Needs `replyBus`, whose events it is made of.
   *
   * @default - no notifications
   */
  readonly approvalNotifications?: sns.ITopic;

  /**
   * Show the call's args in approval notifications (`Tool Approval Requested` events on the reply
   * bus then carry them too). Args may hold personal data.
   *
   * @default false
   */
  readonly notifyWithArgs?: boolean;

  /**
   * A customer managed key for the created queue, dead-letter queues and approvals table. When rules
   * are added, EventBridge must be able to use it for the event dead-letter queue: the construct adds
   * that to the key policy of a key in this app, and warns for an imported key.
   *
   * With an existing `approvalsTable`, the table keeps its own encryption. If the table object does
   * not carry its key (an imported table), this key is taken to be the table's: the function, the
   * approvals engine and the approvals API get encrypt and decrypt on it, `grantReadApprovals` decrypt.
   *
   * @default - SQS managed encryption (SSE-SQS) for the queues, which EventBridge can write to, and
   * the AWS managed key (`alias/aws/dynamodb`) for the table
   */
  readonly encryptionKey?: kms.IKey;

  /**
   * The function's runtime (a Node.js one).
   *
   * @default lambda.Runtime.NODEJS_22_X
   */
  readonly runtime?: lambda.Runtime;

  /**
   * The function's instruction set.
   *
   * @default lambda.Architecture.ARM_64
   */
  readonly architecture?: lambda.Architecture;

  /**
   * The function's memory in MiB (128 to 10240).
   *
   * @default 512
   */
  readonly memorySize?: number;

  /**
   * More environment variables for the function. The `TOOL_HANDLER_*` variables are the construct's
   * and may not be set here.
   *
   * @default - only the construct's variables and `NODE_OPTIONS=--enable-source-maps`
   */
  readonly environment?: { [key: string]: string };

  /**
   * esbuild settings, merged over the construct's.
   *
   * With source maps on, an `afterBundling` command (after any of yours) rewrites the `.map` files'
   * paths relative to the project root, so that the asset hash does not depend on where the app is
   * checked out.
   *
   * @default - `{ minify: true, sourceMap: true }` merged under the given options (a given option
   * wins); NodejsFunction's defaults for the rest, which leave `@aws-sdk/*` to the Lambda runtime
   */
  readonly bundling?: nodejs.BundlingOptions;

  /**
   * The lock file that decides the project root for bundling.
   *
   * @default - the nearest `package-lock.json`, `yarn.lock`, `pnpm-lock.yaml` or `bun.lock` above
   * the working directory
   */
  readonly depsLockFilePath?: string;

  /**
   * The directory esbuild bundles from. `entry` must be inside it.
   *
   * @default - the directory of `depsLockFilePath`
   */
  readonly projectRoot?: string;

  /**
   * How long the log groups of the construct's functions keep logs (the handler's, and each
   * approvals function's). The log groups that hold audit records keep them for the longer of this
   * and `auditRetention`.
   *
   * @default logs.RetentionDays.TWO_YEARS
   */
  readonly logRetention?: logs.RetentionDays;

  /**
   * How long the audit records are kept in CloudWatch Logs (docs/operations.md, "Audit records"): the retention
   * of the log groups of the functions that write them, the handler (one record per call), the
   * approvals API (one per decision) and the expirer (one per expiry). A log group has one
   * retention, so each of these gets the longer of `logRetention` and `auditRetention`: a shorter
   * `auditRetention` changes nothing, a longer one keeps those functions' other lines as long.
   * `auditArchive` keeps the records in S3 beyond it.
   *
   * @default - `logRetention` (two years by default)
   */
  readonly auditRetention?: logs.RetentionDays;

  /**
   * Ship the audit records of every function that writes them to S3 (docs/operations.md, "Audit records"): a
   * CloudWatch Logs subscription filter (`{ $.record = "audit" }`) on each of their log groups,
   * through Amazon Data Firehose, into `bucket` (or a created one), one record per line under
   * `audit/<owner>/yyyy/MM/dd/`. The bucket is `auditArchiveBucket`.
   *
   * @default - no archive: the records stay in CloudWatch Logs for their retention
   */
  readonly auditArchive?: AuditArchiveOptions;

  /**
   * Results too big for their way back travel by reference (docs/tool-contract.md): a result above
   * `resultOffloadThreshold` (256 KiB by default) is written to S3 under the owner's prefix and the
   * reply carries `result_ref: { uri, bytes, sha256, expires_at }` instead of `result`; Gateway and
   * Bedrock Agents replies add a presigned GET URL. The bucket is `resultBucket`; read one owner's
   * results with `grantReadResults`.
   *
   * @default - no offload: a result over its way back's limit (6 MB for a synchronous invoke, 1 MB
   * for SQS and EventBridge calls) fails as `ToolFailed`, saying so
   */
  readonly resultOffload?: ResultOffloadOptions;

  /**
   * With `resultOffload`, results above this size (UTF-8 bytes of JSON) are offloaded; 1 byte to 6 MiB.
   *
   * @default Size.kibibytes(256): what every way back carries
   */
  readonly resultOffloadThreshold?: Size;

  /**
   * X-Ray tracing of the function.
   *
   * @default lambda.Tracing.DISABLED
   */
  readonly tracing?: lambda.Tracing;

  /**
   * How many times Lambda retries an asynchronous invocation (an EventBridge event, an `Event`
   * invoke) that failed (0 to 2), before it sends it to the on-failure destination,
   * `eventDeadLetterQueue`.
   *
   * @default 2
   */
  readonly retryAttempts?: number;

  /**
   * How long Lambda keeps an asynchronous invocation waiting to run (1 minute to 6 hours) before it
   * sends it to `eventDeadLetterQueue`.
   *
   * @default Duration.hours(1)
   */
  readonly maxEventAge?: Duration;

  /**
   * The CloudWatch namespace of the handler's metrics (docs/operations.md: `Calls`, `Failed`,
   * `Duration`, the approvals' figures), set as `TOOL_HANDLER_METRICS_NAMESPACE` on every function.
   * 1 to 255 printable ASCII characters, not starting with `:` or `AWS/`.
   *
   * @default 'CdkToolHandler'
   */
  readonly metricsNamespace?: string;

  /**
   * Create the alarms that each ask a person to act (docs/operations.md): messages in a
   * dead-letter queue, calls waiting on the queue, failing calls, throttles, a failing or stopped
   * expirer, an approval about to expire undecided. `false` creates none: build your own from the
   * `metric...()` methods then.
   *
   * @default true
   */
  readonly alarms?: boolean;

  /**
   * Alarms to leave out, when `alarms` is on: the others are still made.
   *
   * @default - none: every alarm
   */
  readonly disabledAlarms?: ToolHandlerAlarm[];

  /**
   * Where every alarm goes when it fires (an SNS topic action, for instance).
   *
   * @default - no actions: the alarms change state in CloudWatch only
   */
  readonly alarmActions?: cloudwatch.IAlarmAction[];

  /**
   * Messages in a dead-letter queue the construct owns (the created queue's, `eventDeadLetterQueue`,
   * the table's resume path's) at which its alarm fires (a whole number, at least 1).
   *
   * @default 1
   */
  readonly deadLetterAlarmThreshold?: number;

  /**
   * Age of the tool queue's oldest message at which its alarm fires: calls are waiting, the
   * handler is behind or failing (at least 1 minute, whole seconds).
   *
   * @default Duration.minutes(15)
   */
  readonly queueAgeAlarmThreshold?: Duration;

  /**
   * Percent of calls that failed (error replies and thrown errors, `Failed / Calls`) over 5
   * minutes above which its alarm fires (more than 0, at most 100).
   *
   * @default 10
   */
  readonly failedCallsAlarmThreshold?: number;

  /**
   * Throttled invocations of the handler function in 5 minutes at which its alarm fires (a whole
   * number, at least 1).
   *
   * @default 1
   */
  readonly throttlesAlarmThreshold?: number;

  /**
   * Failed runs of the approvals expirer per 5 minutes at which a period counts against it; its
   * alarm fires when 2 of 3 consecutive periods do (a whole number, at least 1).
   *
   * @default 1
   */
  readonly expirerErrorsAlarmThreshold?: number;

  /**
   * How long the expirer's figures may be missing before its alarm fires: the expirer runs every
   * 4 minutes, and a run that fails or never starts writes none (a whole number of 5-minute
   * periods, at least 10 minutes).
   *
   * @default Duration.minutes(15)
   */
  readonly expirerSilenceAlarmThreshold?: Duration;

  /**
   * Age of the oldest pending approval at which its alarm fires: approvers must decide before it
   * expires (whole seconds, at least 1 second, less than `approvalTtl`).
   *
   * @default - 80% of `approvalTtl`
   */
  readonly pendingApprovalAgeAlarmThreshold?: Duration;

  /**
   * Create a CloudWatch dashboard for the handler (docs/operations.md): calls, failures and
   * duration per tool, the approvals' figures, the queues and a table of the latest failures.
   *
   * @default false
   */
  readonly dashboard?: boolean;
}

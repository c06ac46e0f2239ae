import { Annotations, Duration, RemovalPolicy, Stack, Stage, Token, TokenComparison, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, IConstruct } from 'constructs';
import { APPROVAL_ATTRIBUTES as A, DECISION_ATTRIBUTES as D, TABLE } from '../../lambda/construct-contract';
import { DEFAULTS } from '../defaults';
import { fail } from '../errors';
import { grantResumePipe, onlyThePipePutsStatement, wallOffSharedRole } from '../permissions';
import { queueTarget } from '../hosts/eventbridge-sends';
import { ToolHandlerProps } from '../tool-handler-props';
import { isFifo } from '../validation';

export interface ResumeDecisionsOptions {
  readonly props: ToolHandlerProps;
  readonly table: dynamodb.ITable;
  readonly owner: string;
  readonly queue: sqs.IQueue;
  /** The resume rule target's dead-letter queue. */
  readonly deadLetterQueue: sqs.IQueue;
  readonly removalPolicy: RemovalPolicy;
}

/** What `resumeDecisions` made or used. */
export interface ResumeDecisions {
  /** The bus that announces decided approvals: `props.approvalsResumeBus`, or the table's path's. */
  readonly bus: events.IEventBus;
  /** The table's resume path, when this app made it (this handler or another of the table). */
  readonly path?: ApprovalsResumePath;
  /** This handler's rule on `bus`, which puts the resume envelope on its queue. */
  readonly rule: events.Rule;
}

/**
 * Whether this handler makes (or shares) its table's resume path, and so reads the table's stream:
 * `autoResume` is on and no `approvalsResumeBus` is given.
 */
export function makesResumePath(props: ToolHandlerProps): boolean {
  return (props.autoResume ?? true) && !props.approvalsResumeBus;
}

/**
 * `autoResume` (on unless set to false): every decided approval of `owner` comes back on the tool
 * queue as a resume envelope. The table's resume path (`ApprovalsResumePath`, shared by the
 * handlers on one table) or the given `approvalsResumeBus`, and this handler's rule there
 * (`ResumeRule`).
 */
export function resumeDecisions(scope: Construct, options: ResumeDecisionsOptions): ResumeDecisions | undefined {
  const { props, queue } = options;
  if (!(props.autoResume ?? true)) return undefined;
  const path = makesResumePath(props)
    ? ApprovalsResumePath.of(scope, { table: options.table, encryptionKey: props.encryptionKey, removalPolicy: options.removalPolicy })
    : undefined;
  // autoResume is on: a handler that makes no path was given the bus.
  const bus = path ? path.bus : props.approvalsResumeBus!;
  const rule = addResumeRule(scope, 'ResumeRule', {
    bus,
    owner: options.owner,
    queue,
    fifo: isFifo(props),
    deadLetterQueue: options.deadLetterQueue,
  });
  return { bus, path, rule };
}

/**
 * The `source` and `detail-type` of the events the resume path puts on its bus: outside the reply
 * sources (`cdk-tool-handler.<owner>`), which belong to owners.
 */
export const RESUME_EVENT = { source: 'cdk-tool-handler-resume', detailType: 'Tool Approval Decided' } as const;

/**
 * The pipe's filter: only the stream record of the write that added `decision` to an approval item,
 * whatever its owner (`exists` matches leaf values only, hence the `S` level).
 */
export function decisionFilter(): object {
  return {
    eventName: ['MODIFY'],
    dynamodb: {
      Keys: { [TABLE.partitionKey]: { S: [{ prefix: TABLE.approvalKeyPrefix }] } },
      OldImage: { [D.decision]: { S: [{ exists: false }] } },
      NewImage: { [D.decision]: { S: [{ exists: true }] } },
    },
  };
}

/** What the pipe puts on the resume bus: the owner-free approval id and its owner, never args. */
export const RESUME_INPUT_TEMPLATE =
  `{"approval_id": "<$.dynamodb.NewImage.${A.approvalId}.S>", "owner": "<$.dynamodb.NewImage.${A.owner}.S>"}`;

/** The resume paths of an app, by `physicalTableKey`. */
const resumePaths = new WeakMap<IConstruct, Map<string, ApprovalsResumePath>>();

function pathsByTable(table: dynamodb.ITable): Map<string, ApprovalsResumePath> {
  const root = table.node.root;
  let paths = resumePaths.get(root);
  if (!paths) resumePaths.set(root, (paths = new Map()));
  return paths;
}

/**
 * Which physical table `table` is, when synth can tell: its literal name within its stage, and the
 * stack's account and region (or, when those are not known at synth, the stack itself: an
 * environment-agnostic stack may be deployed anywhere). Undefined for a name that is a token.
 */
function physicalTableKey(table: dynamodb.ITable): string | undefined {
  if (Token.isUnresolved(table.tableName)) return undefined;
  const stack = Stack.of(table);
  const where = Token.isUnresolved(stack.account) || Token.isUnresolved(stack.region) ? `stack ${stack.node.path}` : `${stack.account} ${stack.region}`;
  return `${Stage.of(stack)?.node.path ?? ''} ${where} ${table.tableName}`;
}

export interface ApprovalsResumePathOptions {
  readonly table: dynamodb.ITable;
  readonly encryptionKey?: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The one reader of an approvals table's stream, however many handlers share the table (DynamoDB
 * Streams throttles more than two readers of a shard, and a reader sees every owner's records): an
 * EventBridge pipe (L1: aws-pipes has no stable L2) that puts `{ approval_id, owner }` on a bus of
 * its own for every decision. Each handler adds a rule there for its owner (`addResumeRule`), so no
 * handler's queue or role sees another owner's records, and args never leave the table.
 *
 * One is made per table, on first use, beside the table (`<table id>ToolHandlerResume`): every
 * handler given that table object in this app shares it, and so does every handler given another
 * object of the same physical table where synth can tell (a literal table name, in the same stack
 * or in stacks of one known account and region).
 */
export class ApprovalsResumePath extends Construct {
  /** The path of `table`, made now if this app has none yet. */
  static of(scope: Construct, options: ApprovalsResumePathOptions): ApprovalsResumePath {
    const table = options.table;
    const home: IConstruct = table.node.scope ?? table;
    const id = `${table.node.id}ToolHandlerResume`;
    const found = home.node.tryFindChild(id);
    if (found instanceof ApprovalsResumePath) return found;
    if (found) fail(`\`approvalsTable\`: the id ${id} beside the table is taken by another construct (${found.node.path}).`, scope);
    const key = physicalTableKey(table);
    const paths = pathsByTable(table);
    const same = key === undefined ? undefined : paths.get(key);
    if (same) return same;
    const path = new ApprovalsResumePath(home as Construct, id, options);
    if (key !== undefined) paths.set(key, path);
    return path;
  }

  readonly bus: events.EventBus;
  readonly pipe: pipes.CfnPipe;
  /** Stream records the pipe could not put on the bus. */
  readonly deadLetterQueue: sqs.Queue;
  /** The pipe's role: reads the stream, puts on the bus and the dead-letter queue. */
  readonly role: iam.Role;

  private constructor(home: Construct, id: string, options: ApprovalsResumePathOptions) {
    super(home, id);
    // Never undefined: a created table has a stream, and a given one without is a synth error before
    // anything is made (approvalsTableFor, under `makesResumePath`).
    const streamArn = options.table.tableStreamArn!;

    this.bus = new events.EventBus(this, 'Bus', {
      description: 'cdk-tool-handler: one event per decided approval ({ approval_id, owner }), for the handlers sharing the table.',
    });
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: options.encryptionKey ? sqs.QueueEncryption.KMS : sqs.QueueEncryption.SQS_MANAGED,
      encryptionMasterKey: options.encryptionKey,
      enforceSSL: true,
      retentionPeriod: DEFAULTS.deadLetterRetention,
      removalPolicy: options.removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This queue is itself a dead-letter queue: the resume pipe's, for stream records it could not deliver.",
    });

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com'),
      description: 'Announces decided approvals: reads the approvals table stream, puts on the resume bus, nothing else.',
    });
    grantResumePipe(this.role, { streamArn, bus: this.bus, deadLetterQueue: this.deadLetterQueue });
    wallOffSharedRole(this.role);
    this.bus.addToResourcePolicy(onlyThePipePutsStatement(this.bus, this.role));

    this.pipe = new pipes.CfnPipe(this, 'Pipe', {
      description: 'cdk-tool-handler: puts { approval_id, owner } on the resume bus for every decided approval.',
      roleArn: this.role.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: 10,
          maximumRetryAttempts: 10,
          maximumRecordAgeInSeconds: Duration.days(1).toSeconds(),
          deadLetterConfig: { arn: this.deadLetterQueue.queueArn },
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(decisionFilter()) }] },
      },
      target: this.bus.eventBusArn,
      targetParameters: {
        inputTemplate: RESUME_INPUT_TEMPLATE,
        eventBridgeEventBusParameters: { source: RESUME_EVENT.source, detailType: RESUME_EVENT.detailType },
      },
    });
    this.pipe.node.addDependency(this.role);
  }
}

interface ResumeRuleOptions {
  /** The resume bus of the table's path (this app's, or one made elsewhere). */
  readonly bus: events.IEventBus;
  readonly owner: string;
  readonly queue: sqs.IQueue;
  readonly fifo: boolean;
  readonly deadLetterQueue: sqs.IQueue;
}

/** What the rule puts on the tool queue: the resume envelope `{"approval_id": ...}`. */
export const RESUME_ENVELOPE = events.RuleTargetInput.fromObject({ approval_id: events.EventField.fromPath('$.detail.approval_id') });

/**
 * One handler's share of the resume path: a rule on the resume bus matching its owner only, that
 * puts the resume envelope on its tool queue (FIFO: one message group per owner; the queue's
 * content-based deduplication drops a repeat of the same envelope within 5 minutes).
 */
function addResumeRule(scope: Construct, id: string, options: ResumeRuleOptions): events.Rule {
  checkResumeBus(scope, options.bus);
  checkQueueTakesEvents(scope, options.queue);
  const rule = new events.Rule(scope, id, {
    eventBus: options.bus,
    description: `cdk-tool-handler: resumes the decided approvals of owner ${options.owner}.`,
    eventPattern: {
      source: [RESUME_EVENT.source],
      detailType: [RESUME_EVENT.detailType],
      detail: { owner: [options.owner] },
    },
  });
  rule.addTarget(
    queueTarget(scope, options.queue, {
      bus: options.bus,
      message: RESUME_ENVELOPE,
      ...(options.fifo ? { messageGroupId: 'approval-resumes' } : {}),
      deadLetterQueue: options.deadLetterQueue,
      retryAttempts: DEFAULTS.ruleRetryAttempts,
      maxEventAge: DEFAULTS.ruleMaxEventAge,
    }),
  );
  if (!(options.queue instanceof sqs.Queue)) {
    Annotations.of(scope).addWarningV2(
      'cdk-tool-handler:resumeQueuePolicy',
      "`queue` is imported: its policy must let events.amazonaws.com send messages from the resume rule " +
        `(${id}) only (aws:SourceArn), and its key (if any) let EventBridge use it for that rule only, or decided ` +
        'approvals are not resumed (and any rule in the account could send to it).',
    );
  }
  return rule;
}

/** A rule lives in its bus's account and region: a resume bus of another one cannot take this handler's rule. */
function checkResumeBus(scope: Construct, bus: events.IEventBus): void {
  const stack = Stack.of(scope);
  const differs = (a: string, b: string) => Token.compareStrings(a, b) === TokenComparison.DIFFERENT;
  if (differs(bus.env.account, stack.account) || differs(bus.env.region, stack.region)) {
    fail(
      `\`approvalsResumeBus\` must be in this stack's account and region (an EventBridge rule lives beside its bus), ` +
        `got: a bus in ${bus.env.account}/${bus.env.region}, the stack in ${stack.account}/${stack.region}.`,
      scope,
    );
  }
}

/**
 * The resume rule is an EventBridge target of the tool queue, and EventBridge cannot use the AWS
 * managed key `alias/aws/sqs`: a queue of this app encrypted with it would take no resume.
 */
function checkQueueTakesEvents(scope: Construct, queue: sqs.IQueue): void {
  if (queue instanceof sqs.Queue && queue.encryptionType === sqs.QueueEncryption.KMS_MANAGED) {
    fail(
      '`queue` is encrypted with the AWS managed key alias/aws/sqs, which EventBridge cannot use, so decided approvals ' +
        'could not be resumed: use `encryption: sqs.QueueEncryption.SQS_MANAGED` or a customer managed key, or set `autoResume: false`.',
      scope,
    );
  }
}

import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { APPROVAL_ATTRIBUTES, CALL_ATTRIBUTES, DECISION_ATTRIBUTES, REPLY_EVENT_SOURCE, TABLE } from '../lambda/names';
import { FUNCTION_ROLE, PUBLISHER_TAG, TAG } from './tags';

/**
 * Who may do what, in one place. Every grant on the approvals table reaches one owner's items only:
 * item keys carry the owner (`call#<owner>#...`, `approval#<owner>#...`) and index reads are Queries
 * of the owner's partition, so `dynamodb:LeadingKeys` walls owners off from each other.
 *
 * - The tool handler (whose role every user tool runs with) writes its owner's call items and
 *   nothing else: no approval item, no index, no stream, no other owner's call, and no invoke of
 *   any approvals API, expirer, or another owner's engine. Explicit Denies keep that true even if the
 *   role is later given the whole table or `lambda:InvokeFunction` on `*`.
 * - The approvals engine reads and writes its owner's approval items only.
 * - The approvals API reads its owner's approval items and indexes, and writes decisions.
 * - The expirer reads its owner's pending index and marks expiries.
 * - Readers (`grantReadApprovals`) read the owner's approval items and indexes: read-only.
 *
 * How IAM sees a DynamoDB request (Developer Guide, "Using IAM policy conditions for fine-grained
 * access control"): `dynamodb:LeadingKeys` is the partition key value of the request (of the index,
 * for a Query of an index; AWS requires the `ForAllValues` qualifier on an Allow; a Scan has none,
 * so no Scan is granted anywhere); `dynamodb:Attributes` is every top-level attribute name the
 * request names, in its key, update, condition and projection expressions alike.
 */

/** Every attribute a call item has, and so every attribute the handler's writes may name. */
export const CALL_ITEM_ATTRIBUTES: string[] = [
  TABLE.partitionKey,
  TABLE.expiresAttribute,
  TABLE.ttlAttribute,
  ...Object.values(CALL_ATTRIBUTES),
];

/** What the API's decide may name: the key, the decision, what its condition tests, and the pending mark it removes. */
export const DECIDE_ATTRIBUTE_NAMES: string[] = [
  TABLE.partitionKey,
  TABLE.expiresAttribute,
  APPROVAL_ATTRIBUTES.tool,
  APPROVAL_ATTRIBUTES.args,
  APPROVAL_ATTRIBUTES.expiredAt,
  APPROVAL_ATTRIBUTES.pendingOwner,
  ...Object.values(DECISION_ATTRIBUTES),
];

/** What the expirer's mark may name: the key, `expiredAt`, the pending mark it removes, and what its condition tests. */
export const EXPIRE_ATTRIBUTE_NAMES: string[] = [
  TABLE.partitionKey,
  TABLE.expiresAttribute,
  APPROVAL_ATTRIBUTES.expiredAt,
  APPROVAL_ATTRIBUTES.pendingOwner,
  APPROVAL_ATTRIBUTES.owner,
  DECISION_ATTRIBUTES.decision,
];

/** IAM's pattern for every approval key of `owner` (owners never hold `*`, `?` or `#`). */
export function approvalKeys(owner: string): string {
  return `${TABLE.approvalKeyPrefix}${owner}${TABLE.ownerSeparator}*`;
}

/** IAM's pattern for every call key of `owner`. */
export function callKeys(owner: string): string {
  return `${TABLE.callKeyPrefix}${owner}${TABLE.ownerSeparator}*`;
}

/**
 * The handler: UpdateItem and DeleteItem of its owner's call items, naming call-item attributes
 * only. Denied outright: every other action on the table, everything on its indexes and stream,
 * any request on a key outside its owner's calls (approval items, other owners' calls), and any
 * write naming another attribute (such as `owner`, which would put a call's kept reply into an
 * index that readers query).
 */
export function handlerTableStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  const tableArn = table.tableArn;
  const writes = ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
  return [
    new iam.PolicyStatement({
      sid: 'ToolHandlerWritesItsCallItems',
      actions: writes,
      resources: [tableArn],
      conditions: {
        ...onlyItems(callKeys(owner)),
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': CALL_ITEM_ATTRIBUTES },
      },
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerNothingElseOnTheTable',
      effect: iam.Effect.DENY,
      notActions: writes,
      resources: [tableArn],
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerNoIndexesNorStream',
      effect: iam.Effect.DENY,
      actions: ['dynamodb:*'],
      resources: [`${tableArn}/index/*`, `${tableArn}/stream/*`],
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerOnlyItsOwnCallItems',
      effect: iam.Effect.DENY,
      actions: ['dynamodb:*'],
      resources: [tableArn],
      conditions: { 'ForAnyValue:StringNotLike': { 'dynamodb:LeadingKeys': [callKeys(owner)] } },
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerOnlyCallAttributes',
      effect: iam.Effect.DENY,
      actions: writes,
      resources: [tableArn],
      conditions: { 'ForAnyValue:StringNotEquals': { 'dynamodb:Attributes': CALL_ITEM_ATTRIBUTES } },
    }),
  ];
}

/**
 * The handler may never invoke an approvals API (not directly, not through its URL) nor an expirer
 * of any handler, nor another owner's engine: functions are told apart by the tags the construct
 * puts on them (Lambda evaluates `aws:ResourceTag` for `InvokeFunction`). Explicit Denies, so they
 * hold after the role is given `lambda:InvokeFunction` (or `lambda:*`) on `*`.
 */
export function handlerInvokeDenials(owner: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'ToolHandlerNeverApprovalsApisNorExpirers',
      effect: iam.Effect.DENY,
      actions: ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl', 'lambda:InvokeAsync'],
      resources: ['*'],
      conditions: { StringEquals: { [`aws:ResourceTag/${TAG.function}`]: [FUNCTION_ROLE.api, FUNCTION_ROLE.expirer] } },
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerNoOtherOwnersEngine',
      effect: iam.Effect.DENY,
      actions: ['lambda:InvokeFunction', 'lambda:InvokeFunctionUrl', 'lambda:InvokeAsync'],
      resources: ['*'],
      conditions: {
        StringEquals: { [`aws:ResourceTag/${TAG.function}`]: FUNCTION_ROLE.engine },
        StringNotEquals: { [`aws:ResourceTag/${TAG.owner}`]: owner },
      },
    }),
  ];
}

/** The engine: GetItem and UpdateItem of its owner's approval items, nothing else. */
export function engineTableStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'ApprovalsEngineItsApprovalItems',
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: onlyItems(approvalKeys(owner)),
    }),
  ];
}

/** The API: reads of its owner's approvals, and UpdateItem of them naming only `DECIDE_ATTRIBUTE_NAMES`. */
export function apiTableStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  return [
    ...readApprovalStatements(table, owner),
    new iam.PolicyStatement({
      sid: 'ApprovalsApiDecides',
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        ...onlyItems(approvalKeys(owner)),
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': DECIDE_ATTRIBUTE_NAMES },
      },
    }),
  ];
}

/** The expirer: a Query of its owner's pending index, and the mark (`expiredAt`) on its owner's approvals. */
export function expirerTableStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'ApprovalsExpirerReadsItsPending',
      actions: ['dynamodb:Query'],
      resources: [indexArn(table, TABLE.pendingIndex)],
      conditions: onlyPartition(owner),
    }),
    new iam.PolicyStatement({
      sid: 'ApprovalsExpirerMarksExpiry',
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        ...onlyItems(approvalKeys(owner)),
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': EXPIRE_ATTRIBUTE_NAMES },
      },
    }),
  ];
}

/** Read-only access to one owner's approvals: GetItem of its approval items, Query of its partitions of both indexes. */
export function grantReadApprovals(grantee: iam.IGrantable, table: dynamodb.ITable, owner: string, key: kms.IKey | undefined): iam.Grant {
  const grant = readApprovalStatements(table, owner)
    .map((statement) =>
      iam.Grant.addToPrincipal({ grantee, actions: statement.actions, resourceArns: statement.resources, conditions: statement.conditions }),
    )
    .reduce((all, next) => all.combine(next));
  key?.grantDecrypt(grantee);
  return grant;
}

/** GetItem of the owner's approval items, and Query of the owner's partition of each index. */
function readApprovalStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      actions: ['dynamodb:GetItem'],
      resources: [table.tableArn],
      conditions: onlyItems(approvalKeys(owner)),
    }),
    new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [indexArn(table, TABLE.pendingIndex), indexArn(table, TABLE.ownerIndex)],
      conditions: onlyPartition(owner),
    }),
  ];
}

/**
 * PutEvents on the reply bus with the source `cdk-tool-handler` only (`events:source`): for the
 * handler and the expirer, the only parts of the construct that publish there.
 */
export function putRepliesStatement(bus: events.IEventBus): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: ['events:PutEvents'],
    resources: [bus.eventBusArn],
    conditions: { StringEquals: { 'events:source': REPLY_EVENT_SOURCE } },
  });
}

/**
 * The reply bus's own policy: nobody may put events with the source `cdk-tool-handler` but a
 * principal carrying the construct's publisher tag (the handler and expirer roles), so a
 * `Tool Approval Requested` notification can only come from the construct. One statement per bus,
 * whatever the number of handlers publishing there.
 */
export const REPLY_BUS_STATEMENT_SID = 'CdkToolHandlerOnlyItsFunctionsPublish';

export function replyBusGuardStatement(bus: events.IEventBus): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: REPLY_BUS_STATEMENT_SID,
    effect: iam.Effect.DENY,
    principals: [new iam.AnyPrincipal()],
    actions: ['events:PutEvents'],
    resources: [bus.eventBusArn],
    conditions: {
      // Any entry of the request with that source (a PutEvents carries up to 10 entries).
      'ForAnyValue:StringEquals': { 'events:source': [REPLY_EVENT_SOURCE] },
      // A missing tag counts as not equal: untagged principals are denied too.
      StringNotEquals: { [`aws:PrincipalTag/${PUBLISHER_TAG.key}`]: PUBLISHER_TAG.value },
    },
  });
}

function indexArn(table: dynamodb.ITable, index: string): string {
  return `${table.tableArn}/index/${index}`;
}

/** Limits a statement to items whose partition key matches one of `patterns` (AWS requires `ForAllValues`). */
function onlyItems(...patterns: string[]): { [operator: string]: { [key: string]: string[] } } {
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } };
}

/** Limits an index Query to the owner's partition (the index's partition key is the owner). */
function onlyPartition(owner: string): { [operator: string]: { [key: string]: string[] } } {
  return { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [owner] } };
}

import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { APPROVAL_ATTRIBUTES, CALL_ATTRIBUTES, DECISION_ATTRIBUTES, REPLY_EVENT_SOURCE, TABLE } from '../lambda/names';

/**
 * Who may do what on the approvals table, in one place.
 *
 * - The tool handler (whose role every user tool runs with) writes call items (`call#...`) and
 *   nothing else: no access at all to approval items, and its writes may name only call-item
 *   attributes. Explicit Denies keep that true even if the role is later given broader grants.
 * - The approvals engine reads and writes approval items only (create, claim, release, complete).
 * - The approvals API reads approval items, scans the approvals index, and writes decisions.
 * - Readers (`grantReadApprovals`) read approval items and scan the approvals index: read-only.
 *
 * How IAM sees a DynamoDB request (Developer Guide, "Using IAM policy conditions for fine-grained
 * access control"): `dynamodb:LeadingKeys` is the partition key value(s) of the request (AWS requires
 * the `ForAllValues` qualifier on an Allow; a Scan has none, so it cannot be limited by key);
 * `dynamodb:Attributes` is every top-level attribute name the request names, in its key, update,
 * condition and projection expressions alike (an attribute only tested still counts).
 */

/** Every attribute a call item has, and so every attribute the handler's writes may name. */
export const CALL_ITEM_ATTRIBUTES: string[] = [
  TABLE.partitionKey,
  TABLE.expiresAttribute,
  TABLE.ttlAttribute,
  ...Object.values(CALL_ATTRIBUTES),
];

/** What the API's decide may name: the key, the decision, and what its condition tests. */
export const DECIDE_ATTRIBUTE_NAMES: string[] = [
  TABLE.partitionKey,
  TABLE.expiresAttribute,
  APPROVAL_ATTRIBUTES.tool,
  APPROVAL_ATTRIBUTES.args,
  APPROVAL_ATTRIBUTES.expiredAt,
  ...Object.values(DECISION_ATTRIBUTES),
];

const APPROVAL_KEYS = `${TABLE.approvalKeyPrefix}*`;
const CALL_KEYS = `${TABLE.callKeyPrefix}*`;

/**
 * The handler: UpdateItem and DeleteItem of call items, naming call-item attributes only. Denied
 * outright: every other action on the table, everything on its indexes and stream (a Query of the
 * approvals index or an export would read approvals), any request on an approval item, and any
 * write naming another attribute (such as `approvalId`, which would put a call's kept reply into
 * the approvals index that readers scan).
 */
export function handlerTableStatements(table: dynamodb.ITable): iam.PolicyStatement[] {
  const tableArn = table.tableArn;
  const writes = ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
  return [
    new iam.PolicyStatement({
      sid: 'ToolHandlerWritesCallItems',
      actions: writes,
      resources: [tableArn],
      conditions: {
        ...onlyItems(CALL_KEYS),
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
      sid: 'ToolHandlerNeverApprovalItems',
      effect: iam.Effect.DENY,
      actions: ['dynamodb:*'],
      resources: [tableArn],
      conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [APPROVAL_KEYS] } },
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

/** The engine: GetItem and UpdateItem of approval items, nothing else. */
export function engineTableStatements(table: dynamodb.ITable): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'ApprovalsEngineApprovalItems',
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: onlyItems(APPROVAL_KEYS),
    }),
  ];
}

/** The API: reads of approvals, and UpdateItem of approval items naming only `DECIDE_ATTRIBUTE_NAMES`. */
export function apiTableStatements(table: dynamodb.ITable): iam.PolicyStatement[] {
  return [
    ...readApprovalStatements(table),
    new iam.PolicyStatement({
      sid: 'ApprovalsApiDecides',
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        ...onlyItems(APPROVAL_KEYS),
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': DECIDE_ATTRIBUTE_NAMES },
      },
    }),
  ];
}

/** Read-only access to approvals: GetItem of approval items, and Scan of the approvals index. */
export function grantReadApprovals(grantee: iam.IGrantable, table: dynamodb.ITable, key: kms.IKey | undefined): iam.Grant {
  const [get, scan] = readApprovalStatements(table);
  const grant = iam.Grant.addToPrincipal({
    grantee,
    actions: get.actions,
    resourceArns: get.resources,
    conditions: get.conditions,
  }).combine(iam.Grant.addToPrincipal({ grantee, actions: scan.actions, resourceArns: scan.resources }));
  key?.grantDecrypt(grantee);
  return grant;
}

/** GetItem of approval items, and Scan of the approvals index (which holds nothing else). */
function readApprovalStatements(table: dynamodb.ITable): [iam.PolicyStatement, iam.PolicyStatement] {
  return [
    new iam.PolicyStatement({
      actions: ['dynamodb:GetItem'],
      resources: [table.tableArn],
      conditions: onlyItems(APPROVAL_KEYS),
    }),
    new iam.PolicyStatement({
      actions: ['dynamodb:Scan'],
      resources: [`${table.tableArn}/index/${TABLE.approvalsIndex}`],
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

/** Limits a statement to items whose partition key matches one of `patterns` (AWS requires `ForAllValues`). */
function onlyItems(...patterns: string[]): { [operator: string]: { [key: string]: string[] } } {
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } };
}

import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { APPROVAL_ATTRIBUTES, DECISION_ATTRIBUTES, TABLE } from '../lambda/names';

/**
 * Least-privilege access to the approvals table, for the handler and for approvers.
 *
 * How IAM sees a DynamoDB write (Developer Guide, "Using IAM policy conditions for fine-grained
 * access control"):
 * - `dynamodb:Attributes` is the set of top-level attribute names a request names: its key, the
 *   attributes it writes (`UpdateExpression`, a `PutItem` item, legacy `AttributeUpdates`) and the
 *   attributes it only evaluates (`ConditionExpression`, legacy `Expected`); placeholders count by
 *   the names they stand for; for reads, the names a projection asks for. The whole items that
 *   `ReturnValues: ALL_OLD | ALL_NEW` return are not in it (IAM decides before the request runs, so
 *   it cannot know them): they are governed by `dynamodb:ReturnValues` alone, which is why AWS's
 *   attribute-limited examples also pin `ReturnValues` to `NONE | UPDATED_*`. Neither policy below
 *   hides attributes from reading (both principals may read whole items), so `ReturnValues` stays
 *   open: the handler needs `ALL_OLD` / `ALL_NEW`.
 * - `dynamodb:LeadingKeys` is the partition key value(s) of the request; AWS requires the
 *   `ForAllValues` qualifier with it. A Scan has no partition key value, so a `ForAllValues`
 *   condition on it holds vacuously: a Scan of the table cannot be limited to approval items. So
 *   readers scan only the sparse approvals index (`TABLE.approvalsIndex`), which holds approval
 *   items and never call items (`call#...`, the kept replies of every tool); GetItem is limited to
 *   approval items, and no one gets Query (the store never queries).
 */

/** The attributes only approvers write. */
export const DECISION_ATTRIBUTE_NAMES: string[] = Object.values(DECISION_ATTRIBUTES);

/**
 * What an approver's decide request may name: the key, the decision attributes, what the store's
 * decide condition reads: `attribute_exists(pk) AND expiresAt > :now AND attribute_not_exists(decision)
 * AND (attribute_not_exists(claimedUntil) OR claimedUntil <= :now)` (a decision waits while a resume
 * holds a live claim), and `fingerprint`, which decide copies into `decidedFingerprint`. Attributes
 * only read count too (see above), so the list must hold them; IAM cannot let a principal read an
 * attribute in a request without also letting it write it, so an approver could write `expiresAt`,
 * `claimedUntil` and `fingerprint` too. None changes what an approval runs (`tool`, `args`, `owner`):
 * a resume runs only args whose fingerprint equals the `decidedFingerprint` of the decision.
 */
export const DECIDE_ATTRIBUTE_NAMES: string[] = [
  TABLE.partitionKey,
  TABLE.ttlAttribute,
  APPROVAL_ATTRIBUTES.claimedUntil,
  APPROVAL_ATTRIBUTES.fingerprint,
  ...DECISION_ATTRIBUTE_NAMES,
];

const APPROVAL_KEYS = `${TABLE.approvalKeyPrefix}*`;
const CALL_KEYS = `${TABLE.callKeyPrefix}*`;

/**
 * The handler's table access: exactly the operations of the runtime's DynamoDB store (GetItem with
 * ConsistentRead of approvals, UpdateItem of approvals and call records, DeleteItem of call records),
 * no PutItem, Scan, Query or transactions. The store never reads a call record with GetItem: `begin`
 * is an UpdateItem upsert that returns the record.
 *
 * The decision attributes are protected by an explicit Deny of any write that names one of them
 * (`ForAnyValue:StringEquals` on `dynamodb:Attributes`). An explicit Deny wins over every Allow, so it
 * holds even when the role later gets broader grants (the tools run with this role, so a tool cannot
 * approve its own call). A Deny and not an attribute allowlist on the Allow, because the handler
 * writes many attributes that a list would have to track; it forbids exactly what must never happen.
 *
 * The consequence for the runtime: since condition attributes count, the handler's writes must not
 * even *test* a decision attribute. Its claim conditions on the claim attributes only and checks the
 * decision in the record the claim returns, giving the claim back at once when it is not approved;
 * `decide` refuses while a claim is live, so no decision can land between the claim and that check.
 */
export function handlerTableStatements(table: dynamodb.ITable): iam.PolicyStatement[] {
  const resources = [table.tableArn];
  return [
    new iam.PolicyStatement({
      sid: 'ToolHandlerGetApprovals',
      actions: ['dynamodb:GetItem'],
      resources,
      conditions: onlyItems(APPROVAL_KEYS),
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerUpdateItems',
      actions: ['dynamodb:UpdateItem'],
      resources,
      conditions: onlyItems(APPROVAL_KEYS, CALL_KEYS),
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerDeleteCallRecords',
      actions: ['dynamodb:DeleteItem'],
      resources,
      conditions: onlyItems(CALL_KEYS),
    }),
    new iam.PolicyStatement({
      sid: 'ToolHandlerNeverWritesDecisions',
      effect: iam.Effect.DENY,
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'],
      resources,
      conditions: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': DECISION_ATTRIBUTE_NAMES } },
    }),
    // Whether PartiQL statements carry `dynamodb:Attributes` is not documented; the handler never
    // uses PartiQL, so its writes are denied outright on this table.
    new iam.PolicyStatement({
      sid: 'ToolHandlerNoPartiQLWrites',
      effect: iam.Effect.DENY,
      actions: ['dynamodb:PartiQLInsert', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'],
      resources,
    }),
  ];
}

/** Reads of approvals (`get`, `list`): GetItem of approval items, and Scan of the approvals index. */
export function grantReadApprovals(grantee: iam.IGrantable, table: dynamodb.ITable, key: kms.IKey | undefined): iam.Grant {
  const grant = readApprovals(grantee, table);
  key?.grantDecrypt(grantee);
  return grant;
}

/**
 * Reads of approvals, and UpdateItem of approval items that may name only `DECIDE_ATTRIBUTE_NAMES`
 * (the key, the decision attributes, and what the decide condition reads): `ForAllValues:StringEquals` on
 * `dynamodb:Attributes` means every attribute the request names must be one of those. So an
 * approver cannot write what runs (`tool`, `args`, `owner`), nor touch call records.
 */
export function grantDecide(grantee: iam.IGrantable, table: dynamodb.ITable, key: kms.IKey | undefined): iam.Grant {
  const read = readApprovals(grantee, table);
  const decide = iam.Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:UpdateItem'],
    resourceArns: [table.tableArn],
    conditions: {
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': DECIDE_ATTRIBUTE_NAMES },
      ...onlyItems(APPROVAL_KEYS),
    },
  });
  key?.grantEncryptDecrypt(grantee);
  return read.combine(decide);
}

/** GetItem of approval items, and Scan of the approvals index (which holds nothing else). */
function readApprovals(grantee: iam.IGrantable, table: dynamodb.ITable): iam.Grant {
  const get = iam.Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:GetItem'],
    resourceArns: [table.tableArn],
    conditions: onlyItems(APPROVAL_KEYS),
  });
  const scan = iam.Grant.addToPrincipal({
    grantee,
    actions: ['dynamodb:Scan'],
    resourceArns: [`${table.tableArn}/index/${TABLE.approvalsIndex}`],
  });
  return get.combine(scan);
}

/** Limits a statement to items whose partition key matches one of `patterns` (AWS requires `ForAllValues`). */
function onlyItems(...patterns: string[]): { [operator: string]: { [key: string]: string[] } } {
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } };
}

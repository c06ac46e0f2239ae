import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { APPROVAL_ATTRIBUTES, DECISION_ATTRIBUTES, TABLE } from '../../lambda/construct-contract';
import { updateApprovalsNaming } from './conditions';
import { readApprovalStatements } from './readers';

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

/** The API: reads of its owner's approvals, and UpdateItem of them naming only `DECIDE_ATTRIBUTE_NAMES`. */
export function apiTableStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  return [
    ...readApprovalStatements(table, owner),
    updateApprovalsNaming('ApprovalsApiDecides', table, owner, DECIDE_ATTRIBUTE_NAMES),
  ];
}

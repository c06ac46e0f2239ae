import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { APPROVAL_ATTRIBUTES, DECISION_ATTRIBUTES, FLOW_ATTRIBUTES, TABLE } from '../../lambda/construct-contract';
import { flowKeys, indexArn, onlyItems, onlyPartition, updateApprovalsNaming } from './conditions';

/** What the expirer's mark may name: the key, `expiredAt`, the pending mark it removes, and what its condition tests. */
export const EXPIRE_ATTRIBUTE_NAMES: string[] = [
  TABLE.partitionKey,
  TABLE.expiresAttribute,
  APPROVAL_ATTRIBUTES.expiredAt,
  APPROVAL_ATTRIBUTES.pendingOwner,
  APPROVAL_ATTRIBUTES.owner,
  DECISION_ATTRIBUTES.decision,
];

/** What the expirer's completion of a waiting flow may name: a flow item's attributes. */
export const FLOW_ITEM_ATTRIBUTES: string[] = [TABLE.partitionKey, TABLE.ttlAttribute, ...Object.values(FLOW_ATTRIBUTES)];

/** The expirer: a Query of its owner's pending index, and the mark (`expiredAt`) on its owner's approvals. */
export function expirerTableStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'ApprovalsExpirerReadsItsPending',
      actions: ['dynamodb:Query'],
      resources: [indexArn(table, TABLE.pendingIndex)],
      conditions: onlyPartition(owner),
    }),
    updateApprovalsNaming('ApprovalsExpirerMarksExpiry', table, owner, EXPIRE_ATTRIBUTE_NAMES),
    // A flow waiting for an approval that expires is failed: the expirer takes its reply_to, once.
    new iam.PolicyStatement({
      sid: 'ApprovalsExpirerCompletesItsFlows',
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        ...onlyItems(flowKeys(owner)),
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': FLOW_ITEM_ATTRIBUTES },
      },
    }),
  ];
}

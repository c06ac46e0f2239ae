import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { approvalKeys, onlyItems } from './conditions';

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

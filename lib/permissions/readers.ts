import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { TABLE } from '../../lambda/construct-contract';
import { approvalKeys, indexArn, onlyItems, onlyPartition } from './conditions';

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
export function readApprovalStatements(table: dynamodb.ITable, owner: string): iam.PolicyStatement[] {
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

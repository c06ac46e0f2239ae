import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { FLOW_KEY_MARK, TABLE } from '../../lambda/construct-contract';

/**
 * The conditions that wall owners off from each other on the approvals table, and the one statement
 * shape two roles share (`updateApprovalsNaming`). How IAM sees a
 * DynamoDB request (Developer Guide, "Using IAM policy conditions for fine-grained access control"):
 * `dynamodb:LeadingKeys` is the partition key value of the request (of the index, for a Query of an
 * index; AWS requires the `ForAllValues` qualifier on an Allow; a Scan has none, so no Scan is
 * granted anywhere); `dynamodb:Attributes` is every top-level attribute name the request names, in
 * its key, update, condition and projection expressions alike.
 */

/** IAM's pattern for every approval key of `owner` (owners never hold `*`, `?` or `#`). */
export function approvalKeys(owner: string): string {
  return `${TABLE.approvalKeyPrefix}${owner}${TABLE.ownerSeparator}*`;
}

/** IAM's pattern for every call key of `owner`. */
export function callKeys(owner: string): string {
  return `${TABLE.callKeyPrefix}${owner}${TABLE.ownerSeparator}*`;
}

/** IAM's pattern for every flow item of `owner` (a waiting flow's reply_to, among its call items). */
export function flowKeys(owner: string): string {
  return `${TABLE.callKeyPrefix}${owner}${TABLE.ownerSeparator}${FLOW_KEY_MARK}*`;
}

export function indexArn(table: dynamodb.ITable, index: string): string {
  return `${table.tableArn}/index/${index}`;
}

/** Limits a statement to items whose partition key matches one of `patterns` (AWS requires `ForAllValues`). */
export function onlyItems(...patterns: string[]): { [operator: string]: { [key: string]: string[] } } {
  return { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': patterns } };
}

/** Limits an index Query to the owner's partition (the index's partition key is the owner). */
export function onlyPartition(owner: string): { [operator: string]: { [key: string]: string[] } } {
  return { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [owner] } };
}

/** UpdateItem of `owner`'s approval items, naming no attribute but `attributes`. */
export function updateApprovalsNaming(sid: string, table: dynamodb.ITable, owner: string, attributes: string[]): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    actions: ['dynamodb:UpdateItem'],
    resources: [table.tableArn],
    conditions: {
      ...onlyItems(approvalKeys(owner)),
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': attributes },
    },
  });
}

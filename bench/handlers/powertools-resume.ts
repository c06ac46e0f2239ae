/**
 * The nearest Powertools counterpart of resuming an approval (Powertools has no approvals): read the
 * approver's decision with one consistent GetItem, then run the tool once under idempotency keyed
 * by the approval id. Used only as the baseline of the dynamo figure's "per resume" row.
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context } from 'aws-lambda';
import { RefundInput, runRefund } from './schemas';

export interface ResumeOptions {
  readonly client: DynamoDBClient;
  /** Holds the idempotency records and, under `approval#<id>`, the approvers' decisions. */
  readonly tableName: string;
}

export function createResume(options: ResumeOptions) {
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'approval_id', throwOnNoIdempotencyKey: true });
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: options.tableName, awsSdkV3Client: options.client });
  const run = makeIdempotent(
    async (_resume: { approval_id: string }, args: unknown) => runRefund(RefundInput.parse(args)),
    { persistenceStore, config },
  );
  return async (approvalId: string, context: Context) => {
    config.registerLambdaContext(context);
    const { Item } = await options.client.send(
      new GetItemCommand({ TableName: options.tableName, Key: { id: { S: `approval#${approvalId}` } }, ConsistentRead: true }),
    );
    const decision = Item ? unmarshall(Item) : undefined;
    if (decision?.decision !== 'approved') throw new Error(`Approval ${approvalId} is not approved.`);
    return run({ approval_id: approvalId }, JSON.parse(String(decision.args)));
  };
}

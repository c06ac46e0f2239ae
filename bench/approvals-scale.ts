/**
 * Approvals at scale (benchmark keys): items DynamoDB reads (the sum of
 * `ScannedCount`) to list and expire one owner's approvals, on dynalite through the real store. A
 * table shared by two owners, each with HISTORY decided and completed approvals; owner A also has
 * 10 pending (none due). Reads must follow what they return, not history.
 *
 * The history is seeded fast but faithfully: one approval of each owner goes through the store's
 * real create, decide, claim and complete, and the rest are copies of its item with their own ids,
 * keys and creation times (BatchWriteItem).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { callFingerprint } from '../lambda/ids';
import { APPROVAL_ATTRIBUTES as A } from '../lambda/construct-contract';
import { DynamoApprovalStore } from '../lambda/stores/dynamo';
import { approvalKey } from '../lambda/stores/dynamo-items';
import { approvalsTableInput, createActiveTable } from '../test/support/dynamo';
import { withDynalite } from './dynamo';

export interface ApprovalScale {
  /** Items read to list all of A's pending approvals, every page. */
  readonly listPendingItemsRead: number;
  /** Items read by one expirer run of A. */
  readonly expireItemsRead: number;
  /** Items read for the first page (50) of A's list without status. */
  readonly listFirstPageItemsRead: number;
}

const PENDING = 10;
const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };

export async function measureApprovalScale(history: number): Promise<ApprovalScale> {
  return withDynalite(async (endpoint) => {
    const dynamo = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
    const client = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
    const tableName = 'bench-approvals-scale';
    await createActiveTable(dynamo, approvalsTableInput(tableName));
    let scanned = 0;
    client.middlewareStack.add(
      ((next: (args: unknown) => Promise<{ output: { ScannedCount?: number } }>) => async (args: unknown) => {
        const result = await next(args);
        scanned += result.output.ScannedCount ?? 0;
        return result;
      }) as never,
      { step: 'initialize', name: 'bench-scanned-count' },
    );
    const store = (owner: string) => new DynamoApprovalStore({ tableName, client, owner });
    const a = store('team-a');
    const b = store('team-b');
    try {
      for (const owner of [a, b]) await seedHistory(owner, client, tableName, history);
      for (let i = 0; i < PENDING; i++) {
        const args = { orderId: `pending-${i}` };
        await a.create({ approvalId: `apr_pending_${i}`, tool: 'refund', args, runId: 'r', callId: `p${i}`, fingerprint: callFingerprint('refund', args) });
      }
      const reads = async (work: () => Promise<unknown>) => {
        scanned = 0;
        await work();
        return scanned;
      };
      const listPendingItemsRead = await reads(async () => {
        let next: string | undefined;
        do next = (await a.listPage({ status: 'pending', next })).next;
        while (next);
      });
      const expireItemsRead = await reads(() => a.expireDue());
      const listFirstPageItemsRead = await reads(() => a.listPage({ limit: 50 }));
      return { listPendingItemsRead, expireItemsRead, listFirstPageItemsRead };
    } finally {
      dynamo.destroy();
    }
  });
}

/** `count` decided and completed approvals of the store's owner: one made by the store, the rest copies of it. */
async function seedHistory(store: DynamoApprovalStore, client: DynamoDBDocumentClient, tableName: string, count: number): Promise<void> {
  const args = { orderId: 'done-0' };
  await store.create({ approvalId: 'apr_done_0', tool: 'refund', args, runId: 'r', callId: 'd0', fingerprint: callFingerprint('refund', args) });
  await store.decide('apr_done_0', { approved: true, by: 'bench' });
  const claim = await store.claim('apr_done_0', { until: Date.now() + 60_000 });
  if (!claim.claimed) throw new Error('bench: the seed approval could not be claimed');
  await store.complete('apr_done_0', claim.token, { refunded: 'done-0' });
  const owner = claim.record.owner;
  const { Item: model } = await client.send(new GetCommand({ TableName: tableName, Key: approvalKey(owner, 'apr_done_0') }));
  if (!model || model[A.pendingOwner] !== undefined) throw new Error('bench: the seed approval is not a decided one');
  const copies = Array.from({ length: count - 1 }, (_, i) => {
    const id = `apr_done_${i + 1}`;
    return { ...model, ...approvalKey(owner, id), [A.approvalId]: id, [A.callId]: `d${i + 1}`, [A.createdAt]: Number(model[A.createdAt]) - (i + 1) * 1000 };
  });
  for (let i = 0; i < copies.length; i += 25) {
    const batch = copies.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    let unprocessed: Record<string, any> | undefined = { [tableName]: batch };
    while (unprocessed && Object.keys(unprocessed).length > 0) {
      unprocessed = (await client.send(new BatchWriteCommand({ RequestItems: unprocessed }))).UnprocessedItems;
    }
  }
}

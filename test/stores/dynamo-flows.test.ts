/**
 * Flow items on the table (dynalite): a reply_to kept for the resume, the completion recorded once
 * by a conditional write (a second record finds it taken), taken back only by the attempt that made
 * it, and the reply_to removed by the write that records the completion, so it outlives its use in
 * no item.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoHandlerStore } from '../../lambda';
import { flowKey } from '../../lambda/stores/dynamo-flows';
import { createTestTable } from '../support/dynamo';

const SFN = { kind: 'sfn', taskToken: 'token-abc' } as const;
const DURABLE = { kind: 'durable', callbackId: 'callback-xyz' } as const;

async function setUp() {
  const { tableName, client } = await createTestTable();
  const store = new DynamoHandlerStore({ tableName, client, owner: 'billing' });
  const item = async (approvalId: string) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: flowKey('billing', approvalId) }))).Item;
  return { flows: store.flows, item };
}

test('a kept reply_to is taken by the first completion only, and leaves the item as it is recorded', async () => {
  const { flows, item } = await setUp();
  await flows.keepReplyTo('apr_1', SFN);
  expect((await item('apr_1'))?.pk).toBe('call#billing#flow#apr_1');
  expect(await flows.beginCompletion('apr_1', undefined, 't1', 'succeeded')).toEqual(SFN);
  expect(await flows.beginCompletion('apr_1', undefined, 't2', 'succeeded')).toBeUndefined();
  const recorded = await item('apr_1');
  expect(recorded).toMatchObject({ completionBy: 't1', completion: 'succeeded' });
  expect(JSON.stringify(recorded)).not.toContain('token-abc');
});

test('a completion given its reply_to (a call that ended at once) records it once, and keeps no token', async () => {
  const { flows, item } = await setUp();
  expect(await flows.beginCompletion('apr_2', DURABLE, 't1', 'failed')).toEqual(DURABLE);
  expect(await flows.beginCompletion('apr_2', DURABLE, 't2', 'failed')).toBeUndefined();
  expect(JSON.stringify(await item('apr_2'))).not.toContain('callback-xyz');
  // A late keep (a redelivered pending call) cannot bring a token back after the completion.
  await flows.keepReplyTo('apr_2', DURABLE);
  expect(JSON.stringify(await item('apr_2'))).not.toContain('callback-xyz');
});

test('nothing kept: no completion', async () => {
  const { flows } = await setUp();
  expect(await flows.beginCompletion('apr_none', undefined, 't1', 'failed')).toBeUndefined();
});

test('undo by the attempt that recorded it puts the kept reply_to back; another attempt\'s undo does nothing', async () => {
  const { flows } = await setUp();
  await flows.keepReplyTo('apr_3', SFN);
  expect(await flows.beginCompletion('apr_3', undefined, 't1', 'succeeded')).toEqual(SFN);
  await flows.undoCompletion('apr_3', SFN, 'someone-else', true);
  expect(await flows.beginCompletion('apr_3', undefined, 't2', 'succeeded')).toBeUndefined();
  await flows.undoCompletion('apr_3', SFN, 't1', true);
  expect(await flows.beginCompletion('apr_3', undefined, 't3', 'succeeded')).toEqual(SFN);
});

test('a closed flow is recorded as closed', async () => {
  const { flows, item } = await setUp();
  await flows.beginCompletion('apr_4', SFN, 't1', 'succeeded');
  await flows.completedClosed('apr_4', 't1');
  expect(await item('apr_4')).toMatchObject({ completion: 'closed' });
});

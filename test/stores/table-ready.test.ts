/**
 * Tables are used only once ACTIVE. dynalite, like DynamoDB, answers CreateTable while the table is
 * CREATING and refuses items until it is ACTIVE; a write sent straight after CreateTable once failed
 * CI with ResourceNotFoundException. A slow switch (200 ms) makes the window certain here.
 */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { approvalsTableInput, createActiveTable, testDocumentClient } from '../support/dynamo';
import { type RunningDynalite, startDynalite } from '../support/dynalite-server';

let slow: RunningDynalite;
beforeAll(async () => {
  slow = await startDynalite({ createTableMs: 200 });
});
afterAll(() => slow.stop());

const item = { pk: 'call#o#r#c' };

test('a write straight after CreateTable meets a table that is not ACTIVE yet', async () => {
  const client = testDocumentClient({ endpoint: slow.endpoint });
  await client.send(new CreateTableCommand(approvalsTableInput('not-waited')));
  await expect(client.send(new PutCommand({ TableName: 'not-waited', Item: item }))).rejects.toMatchObject({
    name: 'ResourceNotFoundException',
  });
});

test('createActiveTable answers once the table takes items', async () => {
  const client = testDocumentClient({ endpoint: slow.endpoint });
  await createActiveTable(client, approvalsTableInput('waited'));
  await expect(client.send(new PutCommand({ TableName: 'waited', Item: item }))).resolves.toBeDefined();
});

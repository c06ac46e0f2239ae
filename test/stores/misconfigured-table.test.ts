/**
 * A table the store cannot use is a configuration error, never a retryable one: on
 * dynalite, a table without the per-owner indexes, a table of another key schema and a missing table
 * give `StoreMisconfigured` (`retryable: false`) with a message that names the table and what to fix;
 * the approvals API answers it 500 `misconfigured` (a throttled table stays 503 `unavailable`), and it
 * crosses the engine's wire as itself. DynamoDB's answers for the cases dynalite cannot produce
 * (access denied, an index still backfilling) are injected as DynamoDB sends them: status 400 and
 * `__type` as in the DynamoDB API Reference's "Error handling" (common errors) section.
 */
import { randomUUID } from 'node:crypto';
import { approvalsApi } from '../../lambda/approvals/api';
import { approvalsEngine } from '../../lambda/approvals/engine';
import { fromWireError } from '../../lambda/approvals/wire-errors';
import { StoreMisconfigured, StoreUnavailable } from '../../lambda/errors';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { createActiveTable, keyOnlyTableInput, testDocumentClient } from '../support/dynamo';
import { functionUrlEvent } from '../support/function-url-event';
import { injectFault, type ServiceFault, THROTTLING } from '../support/sdk-middleware';

const client = testDocumentClient();

/** A table on dynalite with only the given key (no index). */
async function bareTable(keyName = 'pk'): Promise<string> {
  const tableName = `bare-${randomUUID()}`;
  await createActiveTable(client, keyOnlyTableInput(tableName, keyName));
  return tableName;
}

const storeOn = (tableName: string) => new DynamoApprovalStore({ tableName, client });

async function failure(run: () => Promise<unknown>): Promise<Error> {
  return run().then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );
}

const ANY_TABLE_FIX = /Retrying cannot help\.$/;

const ACCESS_DENIED: ServiceFault = {
  statusCode: 400,
  type: 'com.amazon.coral.service#AccessDeniedException',
  message: 'User: arn:aws:sts::123456789012:assumed-role/Api/fn is not authorized to perform: dynamodb:GetItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/t',
};
const BACKFILLING: ServiceFault = {
  statusCode: 400,
  type: 'com.amazon.coral.validate#ValidationException',
  message: 'Cannot read from backfilling global secondary index: pendingByOwner',
};

/** How `run` fails when DynamoDB answers its first request with `fault`. */
async function answered(fault: ServiceFault, run: () => Promise<unknown>): Promise<Error> {
  const remove = injectFault(client, fault);
  try {
    return await failure(run);
  } finally {
    remove();
  }
}

describe('the store: configuration failures are StoreMisconfigured, not retryable', () => {
  test('a table without the per-owner indexes: listing pending approvals and expiring name the missing index', async () => {
    const tableName = await bareTable();
    const store = storeOn(tableName);
    for (const run of [() => store.listPage({ status: 'pending' }), () => store.expireDue()]) {
      const error = await failure(run);
      expect(error).toBeInstanceOf(StoreMisconfigured);
      expect(error).toMatchObject({ name: 'StoreMisconfigured', retryable: false });
      expect(error.message).toContain(`The state store's table ${tableName} cannot serve`);
      expect(error.message).toContain('(ValidationException: The table does not have the specified index: pendingByOwner)');
      expect(error.message).toContain('the global secondary indexes pendingByOwner (pendingOwner, expiresAt) and approvalsByOwner (owner, createdAt)');
      expect(error.message).toMatch(ANY_TABLE_FIX);
    }
  });

  test('a table of another key schema: every item operation says the key differs', async () => {
    const store = storeOn(await bareTable('id'));
    const error = await failure(() => store.get('apr_1'));
    expect(error).toMatchObject({ name: 'StoreMisconfigured', retryable: false });
    expect(error.message).toContain('(ValidationException: The provided key element does not match the schema)');
    expect(error.message).toContain('a String partition key "pk", no sort key');
  });

  test("a missing table: the handler's call items and the approvals alike say it does not exist", async () => {
    const tableName = `missing-${randomUUID()}`;
    const store = storeOn(tableName);
    const key = { runId: 'r1', callId: 'c1' };
    for (const run of [
      () => store.get('apr_1'),
      () => store.begin(key, { fingerprint: 'f', leaseUntil: Date.now() + 1000 }),
    ]) {
      const error = await failure(run as () => Promise<unknown>);
      expect(error).toMatchObject({ name: 'StoreMisconfigured', retryable: false });
      expect(error.message).toContain(`The state store's table ${tableName} cannot serve`);
      expect(error.message).toContain('ResourceNotFoundException');
      expect(error.message).toContain('it does not exist in this account and region');
      expect(error.message).toContain('TOOL_HANDLER_APPROVALS_TABLE');
    }
  });

  test("access denied (DynamoDB's AccessDeniedException) is configuration: a policy outside the construct refuses", async () => {
    const store = storeOn(await bareTable());
    const error = await answered(ACCESS_DENIED, () => store.get('apr_1'));
    expect(error).toMatchObject({ name: 'StoreMisconfigured', retryable: false });
    expect(error.message).toContain("this function's role may not do that");
  });

  test('an index DynamoDB is still filling (added by a deployment in progress) stays retryable', async () => {
    const store = storeOn(await bareTable());
    const error = await answered(BACKFILLING, () => store.listPage({ status: 'pending' }));
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect(error).toMatchObject({ retryable: true });
  });
});

describe('the approvals API: 500 misconfigured, never 503 retry later', () => {
  test('GET /approvals?status=pending on a table without the indexes', async () => {
    const tableName = await bareTable();
    const api = approvalsApi({ store: storeOn(tableName) });
    const result = await api(functionUrlEvent('GET', '/approvals', { query: { status: 'pending' } }));
    expect(result.statusCode).toBe(500);
    const body = JSON.parse(result.body!);
    expect(body.error.type).toBe('misconfigured');
    expect(body.error.message).toContain(`The state store's table ${tableName} cannot serve list`);
    expect(body.error.message).toContain('pendingByOwner');
  });

  test('GET /approvals/{id} on a missing table', async () => {
    const api = approvalsApi({ store: storeOn(`missing-${randomUUID()}`) });
    const result = await api(functionUrlEvent('GET', '/approvals/apr_1'));
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body!).error).toMatchObject({ type: 'misconfigured', message: expect.stringContaining('does not exist') });
  });

  test('a throttled table is still 503 unavailable (retrying helps there)', async () => {
    const api = approvalsApi({ store: storeOn(await bareTable()) });
    const remove = injectFault(client, THROTTLING);
    const result = await api(functionUrlEvent('GET', '/approvals/apr_1')).finally(remove);
    expect(result.statusCode).toBe(503);
    expect(JSON.parse(result.body!).error.type).toBe('unavailable');
  });
});

test("the engine answers it typed and not retryable, and the handler's side reads it back as StoreMisconfigured", async () => {
  const engine = approvalsEngine({ store: storeOn(`missing-${randomUUID()}`), allowed: new Set(['refund']), claimMaxMs: 30_000 });
  const response = await engine({ op: 'create', tool: 'refund', args: { orderId: 'o1' }, run_id: 'r1', call_id: 'c1' });
  expect(response).toMatchObject({ ok: false, error: { type: 'StoreMisconfigured', retryable: false } });
  const error = fromWireError((response as { error: Parameters<typeof fromWireError>[0] }).error, 'The approvals engine');
  expect(error).toBeInstanceOf(StoreMisconfigured);
  expect(error.retryable).toBe(false);
});

/**
 * An engine that no retry can reach is a configuration error (a run-time configuration
 * error is never retryable): the real `@aws-sdk/client-lambda` against the local run's Lambda Invoke
 * endpoint (local/endpoints.ts), which answers as Lambda does for a function that does not exist
 * (404 ResourceNotFoundException) and for a caller that may not invoke it (403 AccessDeniedException).
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { approvalsEngine } from '../../lambda/approvals/engine';
import { EngineApprovals } from '../../lambda/approvals/engine-client';
import { parseEnvelope } from '../../lambda/envelope';
import { ToolExecutor } from '../../lambda/executor';
import { DynamoApprovalStore } from '../../lambda/stores/dynamo';
import { type LocalEndpoints, startEndpoints } from '../../local/endpoints';
import { refundExecutor } from '../support/counting-tools';
import { createTestTable } from '../support/dynamo';
import { captureLogsOfEachTest } from '../support/events';

captureLogsOfEachTest();

const handlerKeys = { accessKeyId: 'handler', secretAccessKey: 'handler-secret' };
const otherKeys = { accessKeyId: 'other', secretAccessKey: 'other-secret' };

let endpoints: LocalEndpoints;
let invokes: number;

beforeAll(async () => {
  const table = await createTestTable();
  const engine = approvalsEngine({
    store: new DynamoApprovalStore({ tableName: table.tableName, client: table.client }),
    allowed: new Set(['refund']),
    claimMaxMs: 60_000,
  });
  endpoints = await startEndpoints(
    {
      invoke: (name, event) => {
        if (name !== 'engine') return undefined;
        invokes++;
        return engine(event as never).then((result) => ({ ok: true as const, result }));
      },
      onEvent: () => undefined,
    },
    {
      region: 'us-east-1',
      keys: new Map([handlerKeys, otherKeys].map((k) => [k.accessKeyId, k.secretAccessKey])),
      urlOnly: new Set(),
      invokedOnlyBy: new Map([['engine', handlerKeys.accessKeyId]]),
    },
  );
});
afterAll(() => endpoints.close());
beforeEach(() => {
  invokes = 0;
});

let runs = 0;
function executor(functionName: string, credentials: typeof handlerKeys): ToolExecutor {
  const client = new LambdaClient({ endpoint: endpoints.url, region: 'us-east-1', credentials, maxAttempts: 3 });
  return refundExecutor(new EngineApprovals({ functionName, client }), () => runs++);
}

const call = () => parseEnvelope({ tool: 'refund', args: { orderId: 'o1' }, run_id: 'r', call_id: 'c' });
const options = () => ({ source: 'test', deadline: Date.now() + 30_000, invocationEnd: Date.now() + 30_000 });

test('the engine as set up answers (the baseline of the two cases below)', async () => {
  await expect(executor('engine', handlerKeys).execute(call(), options())).resolves.toMatchObject({ status: 'pending_approval' });
  expect(invokes).toBe(1);
});

test('an engine that does not exist is StoreMisconfigured, not retryable, naming the function and what to set', async () => {
  const failure = executor('no-such-engine', handlerKeys).execute(call(), options());
  await expect(failure).rejects.toMatchObject({ name: 'StoreMisconfigured', retryable: false });
  await expect(failure).rejects.toThrow(
    /^The approvals engine \(no-such-engine\) cannot serve create \(ResourceNotFoundException: Function not found: no-such-engine\): .*TOOL_HANDLER_APPROVALS_ENGINE.*Retrying cannot help\.$/,
  );
  expect(runs).toBe(0);
});

test('an engine this role may not invoke is StoreMisconfigured, not retryable, and nothing reached it', async () => {
  const failure = executor('engine', otherKeys).execute(call(), options());
  await expect(failure).rejects.toMatchObject({ name: 'StoreMisconfigured', retryable: false });
  await expect(failure).rejects.toThrow(/^The approvals engine \(engine\) cannot serve create \(AccessDeniedException: .*\): this function's role may not invoke it\./);
  expect(invokes).toBe(0);
  expect(runs).toBe(0);
});

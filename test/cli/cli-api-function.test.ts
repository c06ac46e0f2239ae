/**
 * The CLI's contract tests against the real approvals API function (`lambda/functions/approvals-api.ts`),
 * its store on the shared dynalite, behind the local function-URL host. Approvals are seeded as the
 * engine creates them (`DynamoApprovalStore.create`, ids and fingerprint from `lambda/ids`).
 */
import { randomUUID } from 'node:crypto';
import type { FunctionUrlHandler } from '../../local/function-url';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { describeCliContract, type ApiUnderTest } from './cli-contract';
import { captureLogsOfEachTest } from '../support/events';

captureLogsOfEachTest();

describeCliContract('the approvals API function on dynalite', async (): Promise<ApiUnderTest> => {
  // Loaded here, not at the top: the entry reads its environment when it is imported.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { ENV } = require('../../lambda/construct-contract') as typeof import('../../lambda/construct-contract');
  const { DynamoApprovalStore } = require('../../lambda/stores/dynamo') as typeof import('../../lambda/stores/dynamo');
  const { approvalIdFor, callFingerprint } = require('../../lambda/ids') as typeof import('../../lambda/ids');
  const { tableName, client } = await createTestTable();
  process.env[ENV.approvalsTable] = tableName;
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynaliteEndpoint();
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  const { handler } = require('../../lambda/functions/approvals-api') as { handler: unknown };
  /* eslint-enable @typescript-eslint/no-require-imports */

  const store = new DynamoApprovalStore({ tableName, client });
  // A clock eight days back: what it creates expired a day ago (the TTL is seven days).
  const past = new DynamoApprovalStore({ tableName, client, now: () => Date.now() - 8 * 24 * 3600 * 1000 });
  return {
    handler: handler as FunctionUrlHandler,
    canSeedExpired: true,
    async seed(input) {
      const runId = input.runId ?? `run_${randomUUID()}`;
      const callId = input.callId ?? `call_${randomUUID()}`;
      const approvalId = approvalIdFor(runId, callId);
      await (input.expired ? past : store).create({
        approvalId,
        tool: input.tool,
        args: input.args,
        runId,
        callId,
        fingerprint: callFingerprint(input.tool, input.args),
      });
      return approvalId;
    },
  };
});

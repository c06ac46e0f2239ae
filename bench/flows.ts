/**
 * What a waiting flow costs a call (docs/flows.md): the requests a call with `reply_to` makes beyond
 * the same call without it. The handler (`toolHandler`, the real runtime) runs in this process on a
 * DynamoHandlerStore over dynalite, its DynamoDB requests counted by SDK middleware; its Step
 * Functions client is pointed at the local stand-in (local/flow-engines.ts, which takes the bench's
 * keys), which counts the completions. Measured for a call that ends at once, and for one that waits for its approval (the
 * request, then the resume).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { DynamoApprovalStore, DynamoHandlerStore, tool, toolHandler, ToolExecutor } from '../lambda';
import { resetFlowEngineClients } from '../lambda/flows/engines';
import { startFlowEngines } from '../local/flow-engines';
import { createActiveTable, approvalsTableInput } from '../test/support/dynamo';
import { withDynalite } from './dynamo';
import { lambdaContext, sqsEvent, sqsRecord } from './lib/events';
import { withoutLogLines } from './lib/quiet';
import { mean } from './lib/stats';

export interface FlowCompletionRoundTrips {
  /** DynamoDB requests of a plain call without `reply_to`. */
  readonly callDynamo: number;
  /** DynamoDB requests of the same call with `reply_to`: one more, the completion's record. */
  readonly callWithReplyToDynamo: number;
  /** Completion requests (`SendTaskSuccess`) per call with `reply_to`. */
  readonly callCompletions: number;
  /** DynamoDB requests of an approval request with `reply_to` beyond one without (keeping the reply_to). */
  readonly requestExtraDynamo: number;
  /** DynamoDB requests of a resume no flow waits for (as before flows: the claim and the completion). */
  readonly resumeDynamo: number;
  /** DynamoDB requests of the resume with a waiting flow beyond one without (the completion's record), and its completions. */
  readonly resumeExtraDynamo: number;
  readonly resumeCompletions: number;
}

function counted(endpoint: string): { client: DynamoDBClient; requests: () => number } {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  let requests = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      requests++;
      return next(args);
    },
    { step: 'finalizeRequest', name: 'benchCountFlowRequests', priority: 'low' },
  );
  return { client, requests: () => requests };
}

export async function measureFlowCompletionRoundTrips(iterations: number): Promise<FlowCompletionRoundTrips> {
  const keys = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  const engines = await startFlowEngines(
    { region: 'us-east-1', keys: new Map([[keys.accessKeyId, keys.secretAccessKey]]), urlOnly: new Set(), invokedOnlyBy: new Map() },
    { onCompletion: () => true },
  );
  const saved = { ...process.env };
  Object.assign(process.env, { AWS_ENDPOINT_URL_SFN: engines.url, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench' });
  resetFlowEngineClients();
  try {
    return await withDynalite(async (endpoint) => {
      const { client, requests } = counted(endpoint);
      const tableName = `bench-flows-${Date.now()}`;
      await createActiveTable(client, approvalsTableInput(tableName));
      const document = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
      const store = new DynamoHandlerStore({ tableName, client: document });
      const approver = new DynamoApprovalStore({ tableName, client: DynamoDBDocumentClient.from(counted(endpoint).client) });
      const add = tool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b });
      const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: ({ orderId }) => ({ refunded: orderId }) });
      const handler = toolHandler(new ToolExecutor({ tools: [add, refund], approvals: store }), { replies: false });
      const deliver = async (id: string, body: unknown): Promise<void> => {
        const answer = (await withoutLogLines(() => handler(sqsEvent([sqsRecord(id, JSON.stringify(body))]), lambdaContext()))) as { batchItemFailures: unknown[] };
        if (answer.batchItemFailures.length > 0) throw new Error(`bench delivery ${id} failed`);
      };
      const cost = async (work: () => Promise<void>) => {
        const dynamo = requests();
        const completions = engines.received.length;
        await work();
        return { dynamo: requests() - dynamo, completions: engines.received.length - completions };
      };
      const sfn = (token: string) => ({ kind: 'sfn', task_token: token });
      await deliver('warm', { tool: 'add', args: { a: 0, b: 0 }, run_id: 'warm', call_id: 'warm', reply_to: sfn('warm') });

      const samples: Record<keyof FlowCompletionRoundTrips, number[]> = {
        callDynamo: [], callWithReplyToDynamo: [], callCompletions: [], requestExtraDynamo: [], resumeDynamo: [], resumeExtraDynamo: [], resumeCompletions: [],
      };
      for (let i = 0; i < iterations; i++) {
        const plain = await cost(() => deliver(`plain-${i}`, { tool: 'add', args: { a: i, b: 1 }, run_id: `p-${i}`, call_id: 'c' }));
        const flow = await cost(() => deliver(`flow-${i}`, { tool: 'add', args: { a: i, b: 1 }, run_id: `f-${i}`, call_id: 'c', reply_to: sfn(`t-${i}`) }));
        samples.callDynamo.push(plain.dynamo);
        samples.callWithReplyToDynamo.push(flow.dynamo);
        samples.callCompletions.push(flow.completions);

        const ids = [`ap-${i}`, `af-${i}`];
        const plainRequest = await cost(() => deliver(`rp-${i}`, { tool: 'refund', args: { orderId: ids[0] }, run_id: ids[0], call_id: 'c' }));
        const flowRequest = await cost(() =>
          deliver(`rf-${i}`, { tool: 'refund', args: { orderId: ids[1] }, run_id: ids[1], call_id: 'c', reply_to: sfn(`rt-${i}`) }),
        );
        samples.requestExtraDynamo.push(flowRequest.dynamo - plainRequest.dynamo);
        const resumes = [];
        for (const id of ids) {
          const [pending] = await approver.list({ pending: true }).then((all) => all.filter((r) => r.runId === id));
          await approver.decide(pending.approvalId, { approved: true, by: 'bench' });
          resumes.push(await cost(() => deliver(`resume-${id}`, { approval_id: pending.approvalId })));
        }
        samples.resumeDynamo.push(resumes[0].dynamo);
        samples.resumeExtraDynamo.push(resumes[1].dynamo - resumes[0].dynamo);
        samples.resumeCompletions.push(resumes[1].completions);
      }
      return Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, mean(values)])) as unknown as FlowCompletionRoundTrips;
    });
  } finally {
    process.env = saved;
    resetFlowEngineClients();
    await engines.close();
  }
}

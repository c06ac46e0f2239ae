/**
 * Engine invokes: how many Lambda invokes of the approvals engine a call that needs
 * approval, a resume and a resume that cannot run cost. The handler's executor talks to the engine
 * through the real `@aws-sdk/client-lambda`, pointed at a local Invoke endpoint that runs the engine
 * (its source) on dynalite; invokes are counted at that endpoint.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LambdaClient } from '@aws-sdk/client-lambda';
import * as z from 'zod';
import { parseEnvelope, tool, ToolExecutor } from '../lambda';
import { approvalsEngine } from '../lambda/approvals/engine';
import { EngineApprovals } from '../lambda/approvals/engine-client';
import { DynamoApprovalStore } from '../lambda/stores/dynamo';
import { createActiveTable, keyOnlyTableInput } from '../test/support/dynamo';
import { withDynalite } from './dynamo';
import { withoutLogLines } from './lib/quiet';
import { mean } from './lib/stats';

export interface ApprovalInvokes {
  readonly create: number;
  readonly resume: number;
  readonly refusedResume: number;
}

const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };

export async function measureApprovalInvokes(iterations: number): Promise<ApprovalInvokes> {
  return withDynalite(async (endpoint) => {
    const dynamo = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials });
    await createActiveTable(dynamo, keyOnlyTableInput('bench-approvals'));
    const store = new DynamoApprovalStore({ tableName: 'bench-approvals', client: DynamoDBDocumentClient.from(dynamo) });
    const engine = approvalsEngine({ store, allowed: new Set(['refund']), claimMaxMs: 60_000 });
    let invokes = 0;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        invokes++;
        const answer = await engine(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const lambda = new LambdaClient({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, region: 'us-east-1', credentials });
    const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: ({ orderId }) => orderId });
    const executor = new ToolExecutor({ tools: [refund], approvals: new EngineApprovals({ functionName: 'engine', client: lambda }), calls: false });
    const options = { source: 'bench', deadline: Date.now() + 600_000, invocationEnd: Date.now() + 600_000 };
    const counted = async (work: () => Promise<unknown>) => {
      const before = invokes;
      await work();
      return invokes - before;
    };
    const samples = { create: [] as number[], resume: [] as number[], refusedResume: [] as number[] };
    try {
      await withoutLogLines(async () => {
        for (let i = 0; i < iterations; i++) {
          const call = parseEnvelope({ tool: 'refund', args: { orderId: `o${i}` }, run_id: `r${i}`, call_id: `c${i}` });
          let approvalId = '';
          samples.create.push(
            await counted(async () => {
              const reply = (await executor.execute(call, options)) as { approval_id: string };
              approvalId = reply.approval_id;
            }),
          );
          await store.decide(approvalId, { approved: true, by: 'bench' });
          const resume = parseEnvelope({ approval_id: approvalId });
          samples.resume.push(await counted(() => executor.execute(resume, options)));
          samples.refusedResume.push(await counted(() => executor.execute(resume, options)));
        }
      });
    } finally {
      lambda.destroy();
      dynamo.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    return { create: mean(samples.create), resume: mean(samples.resume), refusedResume: mean(samples.refusedResume) };
  });
}

/**
 * The cold-start floor: what a hand-written handler with no library costs. It loads the
 * same SDK modules as ours does at init (the DynamoDB client and document client; clients are made
 * on first use, and nothing here uses them), the same zod schemas, and handles an SQS batch: parse
 * each body, find the tool, validate its args, run it, report the records that failed. No envelope
 * rules, ids, duplicate suppression, approvals, deadline or logs: a floor, not a rival.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type * as z from 'zod';
import { AddInput, NoopInput, RefundInput, runAdd, runNoop, runRefund, runSleep, SleepInput } from './schemas';

let documentClient: DynamoDBDocumentClient | undefined;
/** Made on first use, as ours does; the floor's tools never ask for it. */
export function client(): DynamoDBDocumentClient {
  return (documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({})));
}

const tools: Record<string, { input: z.ZodType; run: (args: never) => unknown }> = {
  add: { input: AddInput, run: runAdd },
  refund: { input: RefundInput, run: runRefund },
  noop: { input: NoopInput, run: runNoop },
  sleep: { input: SleepInput, run: (args: { ms: number }) => runSleep(args) },
};

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const { tool, args } = JSON.parse(record.body) as { tool: string; args?: unknown };
        const found = tools[tool];
        if (!found) throw new Error(`unknown tool ${tool}`);
        await found.run((await found.input.parseAsync(args ?? {})) as never);
      } catch {
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}

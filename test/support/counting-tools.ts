/**
 * A handler on the DynamoDB store with two side-effecting tools that count their runs: `charge`
 * (runs at once) and `refund` (requires approval); and an executor of `refund` alone on any approvals runner.
 */
import * as z from 'zod';
import { DynamoApprovalStore, tool, toolHandler, ToolExecutor, type ToolHandlerOptions } from '../../lambda';
import type { HandlerApprovalStore } from '../../lambda/stores/types';
import { createTestTable, type TestClientOptions } from './dynamo';

export async function countingHandler(options: { client?: TestClientOptions; handler?: ToolHandlerOptions } = {}) {
  const { tableName, client } = await createTestTable(options.client);
  const store = new DynamoApprovalStore({ tableName, client });
  const runs = new Map<string, number>();
  const count = (key: string) => runs.set(key, (runs.get(key) ?? 0) + 1);
  const charge = tool({
    name: 'charge',
    input: z.object({ id: z.string() }),
    run: ({ id }) => {
      count(id);
      return { charged: id };
    },
  });
  const refund = tool({
    name: 'refund',
    input: z.object({ id: z.string() }),
    requiresApproval: true,
    run: ({ id }) => {
      count(id);
      return { refunded: id };
    },
  });
  const handler = toolHandler(new ToolExecutor({ tools: [charge, refund], approvals: store }), { replies: false, ...options.handler });
  return { tableName, client, store, runs, handler };
}

/** An executor of one tool, `refund` (requires approval; `{ orderId }`), on `approvals`, without kept replies; `onRun` counts its runs. */
export function refundExecutor(approvals: HandlerApprovalStore, onRun: () => void): ToolExecutor {
  const refund = tool({
    name: 'refund',
    input: z.object({ orderId: z.string() }),
    requiresApproval: true,
    run: ({ orderId }) => {
      onRun();
      return { refunded: orderId };
    },
  });
  return new ToolExecutor({ tools: [refund], approvals, calls: false });
}

/**
 * The sample's tools module: what a user of the library writes. In this repository the runtime is
 * local ('../lambda'); a consumer imports it from 'cdk-tool-handler/lambda'.
 */
import * as z from 'zod';
import { tool, toolHandler } from '../lambda';

/** A plain tool: runs as soon as it is called. */
export const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

/** A tool that needs a human's approval first: the call replies `pending_approval`. */
export const refund = tool({
  name: 'refund',
  description: 'Refunds an order (needs approval).',
  input: z.object({ orderId: z.string().min(1) }),
  requiresApproval: true,
  run: async ({ orderId }) => ({ refunded: orderId }),
});

export const handler = toolHandler([add, refund]);

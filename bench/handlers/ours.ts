/**
 * This library's handler, written as the sample app writes it: `toolHandler(tools)`, with
 * the approvals table (and so duplicate suppression) from TOOL_HANDLER_APPROVALS_TABLE.
 *
 * `BENCH_STORE=memory` swaps in a MemoryApprovalStore at run time (cold start and throughput run with
 * no network). The size figure bundles this file with `process.env.BENCH_STORE` defined as
 * "dynamo", which drops that branch: the measured bundle is the production handler.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoHandlerStore, MemoryApprovalStore, ToolExecutor, toolHandler, type ToolLambdaHandler } from '../../lambda';
import { tools } from './ours-tools';

export interface OursHandlerOptions {
  /** A document client to use instead of the container's shared one (the dynamo bench counts its requests). */
  readonly client?: DynamoDBDocumentClient;
  /** @default TOOL_HANDLER_APPROVALS_TABLE */
  readonly tableName?: string;
}

export function createHandler(options: OursHandlerOptions = {}): ToolLambdaHandler {
  if (process.env.BENCH_STORE === 'memory') {
    return toolHandler(new ToolExecutor({ tools, approvals: new MemoryApprovalStore() }));
  }
  // The dynamo figure's handler, on a client it counts; not in the size figure's bundle (BENCH_STORE
  // defined as "dynamo"), whose handler takes its stores from the environment as the construct's does.
  if (options.client && process.env.BENCH_STORE !== 'dynamo') {
    const tableName = options.tableName ?? process.env.TOOL_HANDLER_APPROVALS_TABLE ?? '';
    return toolHandler(new ToolExecutor({ tools, approvals: new DynamoHandlerStore({ tableName, client: options.client }) }));
  }
  return toolHandler(tools);
}

export const handler = createHandler();

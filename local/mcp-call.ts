/**
 * One `tools/call` of `local --mcp`, made the way AgentCore Gateway invokes a Lambda target: the
 * call's arguments are the event, and `context.clientContext.custom` carries what AWS documents for
 * that context (message version, request and MCP message ids, gateway and target ids, the tool's
 * `<target>___<tool>` name) and no session id, as a Gateway sends it. The answer is what the Gateway
 * answers: the function's JSON reply as one text content item, `isError` for an error reply, and an
 * object result also as `structuredContent` (never for an error, a pending or a refused reply: MCP
 * clients check it against the tool's output schema even when `isError` is set).
 */
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { escapeText } from '../console/escape';
import type { GatewayTool } from './mcp-tools';
import { formatReply, type LocalLine } from './print';
import type { LocalRun } from './runtime';

/**
 * `context.clientContext` of a Gateway invocation of `tool`; an MCP call's `_meta.traceparent` (and
 * `tracestate`) arrive as the propagated headers of those names, which the target allowlists.
 */
function gatewayClientContext(tool: GatewayTool, mcpMessageId: string, meta: Record<string, unknown> | undefined): { readonly custom: Record<string, string> } {
  const trace = Object.fromEntries(['traceparent', 'tracestate'].filter((name) => typeof meta?.[name] === 'string').map((name) => [name, meta![name]]));
  return {
    custom: {
      ...(Object.keys(trace).length === 0 ? {} : { bedrockAgentCorePropagatedHeaders: JSON.stringify(trace) }),
      bedrockAgentCoreMessageVersion: '1.0',
      bedrockAgentCoreAwsRequestId: randomUUID(),
      bedrockAgentCoreMcpMessageId: mcpMessageId,
      bedrockAgentCoreGatewayId: tool.gatewayId,
      bedrockAgentCoreTargetId: tool.targetId,
      bedrockAgentCoreToolName: tool.name,
    },
  };
}

export async function callAsGateway(
  run: LocalRun,
  tool: GatewayTool,
  args: Record<string, unknown>,
  mcpMessageId: string,
  print: (line: LocalLine) => void,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  print({ type: 'info', message: `mcp → ${escapeText(tool.name)} ${escapeText(JSON.stringify(args)).slice(0, 120)}` });
  const outcome = await run.invokeHandler(args, gatewayClientContext(tool, mcpMessageId, meta));
  if (!outcome.ok) {
    // The Gateway masks a function error as an internal error; locally it also says which.
    const { errorType, errorMessage } = outcome.error;
    print({ type: 'info', message: `mcp ← the function failed: ${escapeText(errorType)}: ${escapeText(errorMessage)}` });
    return { content: [{ type: 'text', text: `Internal error: the Lambda function failed (${errorType}).` }], isError: true };
  }
  const reply = outcome.result as { status?: string; approval_id?: string } | null;
  print({ type: 'info', message: `mcp ← ${formatReply(reply)}` });
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(reply) }];
  if (reply?.status === 'pending_approval' && typeof reply.approval_id === 'string') {
    // Local only (the Gateway sends the reply alone): how a person approves in this run.
    const approve = `npx cdk-tool-handler approvals approve ${reply.approval_id} --local`;
    print({ type: 'info', message: `mcp: approve with: ${escapeText(approve)}` });
    content.push({ type: 'text', text: `Local run: a person approves with \`${approve}\`.` });
  }
  const url = (reply as { result_ref?: { url?: unknown; bytes?: unknown } } | null)?.result_ref?.url;
  if (typeof url === 'string') {
    // An offloaded result: the client fetches it from the run's S3 stand-in, as from S3.
    content.push({ type: 'resource_link', uri: url, name: 'result', mimeType: 'application/json', description: 'The tool\'s result, offloaded (result_ref).' });
  }
  const structured = structuredContentOf(reply);
  return structured === undefined ? { content, isError: reply?.status === 'error' } : { content, structuredContent: structured, isError: false };
}

/** The result of an `ok` or `already_done` reply, when it is a JSON object. */
function structuredContentOf(reply: { status?: string; result?: unknown } | null): Record<string, unknown> | undefined {
  if (reply?.status !== 'ok' && reply?.status !== 'already_done') return undefined;
  const { result } = reply;
  return typeof result === 'object' && result !== null && !Array.isArray(result) ? (result as Record<string, unknown>) : undefined;
}

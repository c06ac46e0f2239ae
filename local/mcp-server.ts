/**
 * `local --mcp`: the Model Context Protocol over Streamable HTTP at
 * `http://127.0.0.1:<port>/mcp`, on the official SDK's server classes, showing what an AgentCore
 * Gateway shows for the handler: the gateway targets' tools as the template defines them, each call
 * made the way the Gateway invokes a Lambda target (local/mcp-call.ts). Every request needs the
 * run's bearer token and a loopback `Host` (and, from a browser, a loopback `Origin`), checked before
 * its body is read; a body is read up to the SDK's own 4 MB limit (local/body-limits.ts), no further.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { CliError } from '../console/errors';
import { escapeText } from '../console/escape';
import { MCP_BODY_LIMIT } from './body-limits';
import { answerAndClose, readBody } from './http-request';
import { isLoopbackHost } from './loopback-host';
import { callAsGateway } from './mcp-call';
import { gatewayToolsOf, type GatewayTool } from './mcp-tools';
import type { LocalLine } from './print';
import type { LocalRun } from './runtime';
import { sameText } from './sigv4';

/** The MCP endpoint's path. */
const MCP_PATH = '/mcp';
/** `--port`'s default. */
export const DEFAULT_MCP_PORT = 8931;

export interface McpServerOptions {
  /** 0 for any free port. */
  readonly port: number;
  readonly print: (line: LocalLine) => void;
  /** The bearer token clients must send: the app's (`mcpToken` in state.ts), kept across runs. */
  readonly token: string;
}

export interface LocalMcpServer {
  close(): Promise<void>;
}

/** Starts the server and prints where it is and the token it takes. */
export async function startMcpServer(run: LocalRun, options: McpServerOptions): Promise<LocalMcpServer> {
  const tools = gatewayToolsOf(run.template, run.handlerLogicalId);
  if (tools.length === 0) {
    throw new CliError(
      `The stack ${run.stackName}'s ToolHandler has no AgentCore Gateway target: \`local --mcp\` serves the tools a gateway ` +
        'target lists. Add one in the stack with `tools.addToGateway(gateway)` (docs/hosts.md), then run it again.',
    );
  }
  const { token } = options;
  const http = createServer((request, response) => {
    void serveRequest(request, response, { run, tools, token, port: addressOf(http).port, print: options.print }).catch((error) => {
      if (!response.headersSent) reply(response, 500, -32603, `Internal error: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new CliError(`--port ${options.port} is in use: pass another --port (0 picks a free one).`) : error),
    );
    http.listen(options.port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${addressOf(http).port}${MCP_PATH}`;
  const names = tools.map((tool) => escapeText(tool.name)).join(', ');
  options.print({ type: 'info', message: `mcp: serving ${tools.length} tools (${names}) over Streamable HTTP at ${url}` });
  options.print({ type: 'info', message: `mcp: clients send the header  Authorization: Bearer ${token}` });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

interface Serving {
  readonly run: LocalRun;
  readonly tools: readonly GatewayTool[];
  readonly token: string;
  readonly port: number;
  readonly print: (line: LocalLine) => void;
}

/** Checks who asks, then hands the request to a server and transport of its own (the SDK's stateless mode). */
async function serveRequest(request: IncomingMessage, response: ServerResponse, serving: Serving): Promise<void> {
  if (!isLoopbackHost(request.headers.host, serving.port)) {
    return reply(response, 403, -32000, `Forbidden: Host must be 127.0.0.1:${serving.port} or localhost:${serving.port}.`);
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/i.test(origin)) {
    return reply(response, 403, -32000, 'Forbidden: a page of another origin may not call the local MCP server.');
  }
  if (!hasToken(request.headers.authorization, serving.token)) {
    response.setHeader('WWW-Authenticate', 'Bearer realm="cdk-tool-handler local"');
    return reply(response, 401, -32001, 'Unauthorized: send the header `Authorization: Bearer <token>` that `cdk-tool-handler local --mcp` printed.');
  }
  if ((request.url ?? '').split('?')[0] !== MCP_PATH) return reply(response, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}.`);
  if (request.method !== 'POST') {
    response.setHeader('Allow', 'POST');
    return reply(response, 405, -32000, 'Method not allowed: this server answers POST only (no standalone SSE stream, no sessions).');
  }
  const body = await readBody(request, MCP_BODY_LIMIT);
  if (body === undefined) return reply(response, 413, -32000, `Payload Too Large: the request body must not exceed ${MCP_BODY_LIMIT} bytes.`);
  let message: unknown;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return reply(response, 400, -32700, 'Parse error: Invalid JSON');
  }
  const server = mcpServer(serving);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  // The body is already read (and bounded): the transport takes it parsed.
  await transport.handleRequest(request, response, message);
}

function mcpServer({ run, tools, print }: Serving): Server {
  const server = new Server({ name: 'cdk-tool-handler-local', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ name, description, inputSchema, outputSchema }) => ({
      name,
      ...(description === undefined ? {} : { description }),
      inputSchema,
      ...(outputSchema === undefined ? {} : { outputSchema }),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callAsGateway(run, tool, request.params.arguments ?? {}, String(extra.requestId), print, request.params._meta);
  });
  return server;
}

function hasToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return sameText(match?.[1] ?? '', token);
}

/**
 * A JSON-RPC error answer, as the SDK's own HTTP refusals are written; the connection closes with it,
 * so that a body not read yet is never read.
 */
function reply(response: ServerResponse, status: number, code: number, message: string): void {
  answerAndClose(response, status, { 'Content-Type': 'application/json' }, JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function addressOf(http: HttpServer): AddressInfo {
  return http.address() as AddressInfo;
}

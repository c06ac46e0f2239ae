/**
 * `cdk-tool-handler local --mcp` as a user runs it: the one-file CLI build in a child
 * `node`, on the sample app synthesized with an AgentCore Gateway target, reached by the MCP
 * TypeScript SDK's own `Client` over `StreamableHTTPClientTransport`: the target's tools as the
 * template defines them, a plain call, a call that needs approval, the decision through the local
 * approvals API (`approvals approve --local`), then `resume_approval` with the result. Requests
 * without the run's bearer token, or from another host or origin, are refused.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import { SampleStack } from '../../bin/sample-stack';
import { until } from '../support/until';
import { serveMcp, type ServingMcp } from './serving-mcp';
import { sendRaw, type RawReply } from './raw-aws-request';
import { cliFixture, editedAssembly, local, removeMade, synthesizeApp } from './sample-assembly';

const { bundle, env, build } = cliFixture();
const STACK = 'ToolHandlerSample';

let assembly: string;
let template: any;
let serving: ServingMcp | undefined;
let url: URL;
let token: string;
let client: Client;

/** The sample app with a gateway: `addToGateway` names its tools `sample___add`, `sample___refund`, `sample___resume_approval`. */
function synthesizeSampleWithGateway(): string {
  return synthesizeApp((app) => {
    const stack = new SampleStack(app, STACK);
    const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'sample', authorizerConfiguration: agentcore.GatewayAuthorizer.usingAwsIam() });
    stack.tools.addToGateway(gateway, { gatewayTargetName: 'sample' });
  });
}

const printed = () => serving!.printed();

function connect(headers: Record<string, string>): Promise<Client> {
  const mcp = new Client({ name: 'cdk-tool-handler-test', version: '1.0.0' });
  return mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } })).then(() => mcp);
}

/** The reply a Gateway-shaped tool result carries: its first text content item, parsed. */
function replyOf(result: any): any {
  expect(result.content[0].type).toBe('text');
  return JSON.parse(result.content[0].text);
}

beforeAll(async () => {
  assembly = synthesizeSampleWithGateway();
  template = JSON.parse(fs.readFileSync(path.join(assembly, `${STACK}.template.json`), 'utf8'));
  await build();
  serving = await serveMcp(bundle, assembly, env);
  ({ url, token } = serving);
  client = await connect({ Authorization: `Bearer ${token}` });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await serving?.stop();
  removeMade();
});

test('tools/list: the gateway target\'s tools exactly as the template defines them, named <target>___<tool>', async () => {
  const target = Object.values<any>(template.Resources).find((r) => r.Type === 'AWS::BedrockAgentCore::GatewayTarget').Properties;
  const inline = target.TargetConfiguration.Mcp.Lambda.ToolSchema.InlinePayload;
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(['sample___add', 'sample___refund', 'sample___resume_approval']);
  expect(tools.map((t) => t.description)).toEqual(inline.map((d: any) => d.Description));
  expect(tools[0].inputSchema).toEqual({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  });
  expect(inline[0].InputSchema).toEqual({ Type: 'object', Properties: { a: { Type: 'number' }, b: { Type: 'number' } }, Required: ['a', 'b'] });
  expect(tools[2].inputSchema).toMatchObject({ type: 'object', properties: { approval_id: { type: 'string' } }, required: ['approval_id'] });
});

test('a plain call: the reply as one text content item, as the Gateway answers', async () => {
  const result = await client.callTool({ name: 'sample___add', arguments: { a: 2, b: 3 } });
  expect(result.isError).toBe(false);
  expect(result.content).toHaveLength(1);
  expect(replyOf(result)).toMatchObject({ status: 'ok', tool: 'add', result: 5, run_id: expect.stringMatching(/^agc_/) });
  expect(printed().stderr).toContain('mcp → sample___add {"a":2,"b":3}');
});

test('an error reply is a result with isError, never a protocol error', async () => {
  const result = await client.callTool({ name: 'sample___add', arguments: { a: 'x', b: 3 } });
  expect(result.isError).toBe(true);
  expect(replyOf(result)).toMatchObject({ status: 'error', tool: 'add', error: { type: 'ToolUsageError', retryable: false } });
});

test('a name the target does not list is an MCP error', async () => {
  await expect(client.callTool({ name: 'sample___nope', arguments: {} })).rejects.toThrow('Unknown tool: sample___nope');
});

test('a call that needs approval: pending; approved through the local API; resume_approval returns the result', async () => {
  const pending = await client.callTool({ name: 'sample___refund', arguments: { orderId: 'o-mcp' } });
  expect(pending.isError).toBe(false);
  const reply = replyOf(pending);
  expect(reply).toMatchObject({ status: 'pending_approval', tool: 'refund', approval_id: expect.stringMatching(/^apr_/), expires_at: expect.any(String) });
  const id: string = reply.approval_id;
  expect(reply.next).toBe(`Once approved, call sample___resume_approval with {"approval_id":"${id}"} for the result.`);
  expect((pending.content as any[])[1]).toEqual({ type: 'text', text: `Local run: a person approves with \`npx cdk-tool-handler approvals approve ${id} --local\`.` });

  const early = await client.callTool({ name: 'sample___resume_approval', arguments: { approval_id: id } });
  expect(early.isError).toBe(true);
  expect(replyOf(early)).toMatchObject({ status: 'error', approval_id: id, error: { type: 'ToolUsageError', message: expect.stringContaining('not decided yet') } });

  const approve = await local(['approvals', 'approve', id, '--local', '--yes'], env);
  expect(approve.code).toBe(0);
  // The local run's pipe stand-in resumes it on the tool queue, as the stack's pipe would; then the agent asks.
  await until(() => printed().stdout.includes('← ok refund result {"refunded":"o-mcp"}'), 'the resume by the pipe', printed);

  const resumed = await client.callTool({ name: 'sample___resume_approval', arguments: { approval_id: id } });
  expect(resumed.isError).toBe(false);
  expect(replyOf(resumed)).toEqual({
    status: 'already_done',
    tool: 'refund',
    run_id: reply.run_id,
    call_id: reply.call_id,
    approval_id: id,
    result: { refunded: 'o-mcp' },
  });
}, 60_000);

describe('who may call it', () => {
  const INITIALIZE = { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const CALL = { method: 'tools/call', params: { name: 'sample___add', arguments: { a: 40, b: 2 } } };

  /** A raw POST of a JSON-RPC request (`initialize` unless told), with the headers given. */
  function post(headers: Record<string, string>, message: object = INITIALIZE): Promise<RawReply> {
    return sendRaw({
      origin: url.origin,
      path: url.pathname,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
    });
  }

  test('the SDK client without the token is refused: 401', async () => {
    await expect(connect({})).rejects.toMatchObject({ code: 401, message: expect.stringContaining('Unauthorized') });
  });

  test.each([
    ['no Authorization header', {}],
    ['another token', { Authorization: 'Bearer not-the-token' }],
    ['the token with a byte changed', () => ({ Authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` })],
    ['the token as Basic auth', () => ({ Authorization: `Basic ${token}` })],
  ])('%s: 401 with WWW-Authenticate, and nothing runs', async (_label, headers) => {
    const calls = printed().stderr.split('mcp → ').length;
    const reply = await post(typeof headers === 'function' ? headers() : headers, CALL);
    expect(printed().stderr.split('mcp → ').length).toBe(calls);
    expect(reply.status).toBe(401);
    expect(reply.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(JSON.parse(reply.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringContaining('Unauthorized') } });
  });

  test('the same raw requests with the token are served (the refusals above are for the token alone)', async () => {
    const reply = await post({ Authorization: `Bearer ${token}` });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toMatchObject({ result: { serverInfo: { name: 'cdk-tool-handler-local' } } });
    const call = await post({ Authorization: `Bearer ${token}` }, CALL);
    expect(JSON.parse(JSON.parse(call.text).result.content[0].text)).toMatchObject({ status: 'ok', result: 42 });
  });

  test('a request through another host name (DNS rebinding) is refused, even with the token: 403', async () => {
    const reply = await post({ Authorization: `Bearer ${token}`, Host: `rebound.example:${url.port}` }, CALL);
    expect(reply.status).toBe(403);
  });

  test('a browser page of another origin is refused, even with the token: 403', async () => {
    const reply = await post({ Authorization: `Bearer ${token}`, Origin: 'https://evil.example' }, CALL);
    expect(reply.status).toBe(403);
  });
});

test('a stack without a gateway target: --mcp says how to add one', async () => {
  // The same assembly with its gateway target taken out of the template, from which `--mcp` reads the tools.
  const withoutTarget = editedAssembly(assembly, (t) => {
    for (const [id, resource] of Object.entries<any>(t.Resources)) if (resource.Type === 'AWS::BedrockAgentCore::GatewayTarget') delete t.Resources[id];
  });
  const result = await local(['local', '--assembly', withoutTarget, '--mcp', '--port', '0'], { ...process.env, CDK_TOOL_HANDLER_LOCAL_STATE: path.join(os.tmpdir(), `mcp-none-${process.pid}.json`) });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    "The stack ToolHandlerSample's ToolHandler has no AgentCore Gateway target: `local --mcp` serves the tools a gateway target lists. " +
      'Add one in the stack with `tools.addToGateway(gateway)`',
  );
}, 120_000);

test('the bearer token is the app\'s: the same on the next run, until --new-mcp-token replaces it and the old one is refused', async () => {
  const ownEnv = { ...env, CDK_TOOL_HANDLER_LOCAL_STATE: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-token-')), 'state.json') };
  const serve = async (extra: string[] = []) => {
    const run = await serveMcp(bundle, assembly, ownEnv, extra);
    return { served: run.url, bearer: run.token, stop: run.stop };
  };
  const first = await serve();
  await first.stop();
  const second = await serve();
  expect(second.bearer).toBe(first.bearer);
  await second.stop();

  const third = await serve(['--new-mcp-token']);
  try {
    expect(third.bearer).not.toBe(first.bearer);
    const old = await sendRaw({
      origin: third.served.origin,
      path: third.served.pathname,
      headers: { Authorization: `Bearer ${first.bearer}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(old.status).toBe(401);
    const mcp = new Client({ name: 'cdk-tool-handler-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(third.served, { requestInit: { headers: { Authorization: `Bearer ${third.bearer}` } } }));
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    await mcp.close();
  } finally {
    await third.stop();
  }
}, 120_000);

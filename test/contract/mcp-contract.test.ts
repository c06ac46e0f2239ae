/**
 * The tool contract as an MCP client meets it: `cdk-tool-handler local --mcp` (the CLI build in a
 * child `node`) on an app whose gateway target lists test/fixtures/contract-tools.ts, called by the
 * MCP TypeScript SDK's own `Client`, which checks `structuredContent` against each tool's
 * `outputSchema` itself: a valid result, a result the tool's schema refuses, and an error reply;
 * a call's `_meta.traceparent`, which the tool finds in `ctx.trace`; and a result over the offload
 * threshold, fetched through the `resource_link` (a presigned URL) from the local run's S3.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Size, Stack } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import { ToolHandler } from '../../lib';
import { QUOTE_SECRET } from '../fixtures/contract-tools';
import { cliFixture, removeMade, synthesizeApp } from '../local/sample-assembly';
import { serveMcp, type ServingMcp } from '../local/serving-mcp';

const { bundle, env, build } = cliFixture();
const STACK = 'Contract';
let template: any;
let serving: ServingMcp | undefined;
let client: Client;

beforeAll(async () => {
  const assembly = synthesizeApp((app) => {
    const stack = new Stack(app, STACK);
    const tools = new ToolHandler(stack, 'Tools', {
      entry: path.join(__dirname, '..', 'fixtures', 'contract-tools.ts'),
      allowedTools: ['quote', 'broken_quote', 'approve_quote', 'count', 'traced', 'large'],
      resultOffload: {},
      resultOffloadThreshold: Size.kibibytes(4),
    });
    const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'contract', authorizerConfiguration: agentcore.GatewayAuthorizer.usingAwsIam() });
    tools.addToGateway(gateway, { gatewayTargetName: 'c' });
  });
  template = JSON.parse(fs.readFileSync(path.join(assembly, `${STACK}.template.json`), 'utf8'));
  await build();
  serving = await serveMcp(bundle, assembly, env);
  const { url, token } = serving;
  client = new Client({ name: 'contract-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
}, 180_000);

afterAll(async () => {
  await client?.close();
  await serving?.stop();
  removeMade();
});

test('the target lists the output schema of an object result, and none for an approval tool nor a number', async () => {
  const target = Object.values<any>(template.Resources).find((r) => r.Type === 'AWS::BedrockAgentCore::GatewayTarget').Properties;
  const inline = target.TargetConfiguration.Mcp.Lambda.ToolSchema.InlinePayload;
  const outputs = Object.fromEntries(inline.map((d: any) => [d.Name, d.OutputSchema]));
  const quoteOutput = { Type: 'object', Properties: { sku: { Type: 'string' }, price: { Type: 'number' } }, Required: ['sku', 'price'] };
  expect(outputs).toEqual({ quote: quoteOutput, broken_quote: quoteOutput, approve_quote: undefined, count: undefined, traced: undefined, large: undefined, resume_approval: undefined });

  const { tools } = await client.listTools();
  const listed = Object.fromEntries(tools.map((t) => [t.name, t.outputSchema]));
  const quoteSchema = { type: 'object', properties: { sku: { type: 'string' }, price: { type: 'number' } }, required: ['sku', 'price'] };
  expect(listed).toEqual({
    c___quote: quoteSchema,
    c___broken_quote: quoteSchema,
    c___approve_quote: undefined,
    c___count: undefined,
    c___traced: undefined,
    c___large: undefined,
    c___resume_approval: undefined,
  });
});

test('a valid result: structuredContent (what the schema parsed) beside the JSON text, checked by the client', async () => {
  const result = await client.callTool({ name: 'c___quote', arguments: { sku: 's1' } });
  expect(result.isError).toBe(false);
  expect(result.structuredContent).toEqual({ sku: 's1', price: 9.5 });
  expect(JSON.parse((result.content as any[])[0].text)).toMatchObject({ status: 'ok', tool: 'quote', result: { sku: 's1', price: 9.5 } });
});

test('a result the tool\'s schema refuses: an error reply (ToolOutputInvalid), no structuredContent, no value echoed', async () => {
  const result = await client.callTool({ name: 'c___broken_quote', arguments: { sku: 's1' } });
  expect(result.isError).toBe(true);
  expect(result).not.toHaveProperty('structuredContent');
  const text = (result.content as any[])[0].text as string;
  expect(JSON.parse(text)).toMatchObject({ status: 'error', error: { type: 'ToolOutputInvalid', retryable: false, message: expect.stringContaining('`result.price`') } });
  expect(text).not.toContain(QUOTE_SECRET);
});

test('an error reply (bad args) carries no structuredContent, so the client does not refuse it', async () => {
  const result = await client.callTool({ name: 'c___quote', arguments: { sku: 7 } });
  expect(result.isError).toBe(true);
  expect(result).not.toHaveProperty('structuredContent');
  expect(JSON.parse((result.content as any[])[0].text)).toMatchObject({ status: 'error', error: { type: 'ToolUsageError' } });
});

test('a pending reply carries no structuredContent (the approval tool lists no output schema)', async () => {
  const result = await client.callTool({ name: 'c___approve_quote', arguments: { sku: 's1' } });
  expect(result.isError).toBe(false);
  expect(result).not.toHaveProperty('structuredContent');
  expect(JSON.parse((result.content as any[])[0].text)).toMatchObject({ status: 'pending_approval' });
});

test("a call's _meta.traceparent and tracestate reach ctx.trace (the target lets the trace headers through), and the reply names the trace", async () => {
  const target = Object.values<any>(template.Resources).find((r) => r.Type === 'AWS::BedrockAgentCore::GatewayTarget').Properties;
  expect(target.MetadataConfiguration).toEqual({ AllowedRequestHeaders: ['traceparent', 'tracestate'] });
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const result = await client.callTool({ name: 'c___traced', arguments: {}, _meta: { traceparent, tracestate: 'vendor=1' } });
  expect(result.structuredContent).toEqual({ traceparent, tracestate: 'vendor=1' });
  expect(JSON.parse((result.content as any[])[0].text)).toMatchObject({ status: 'ok', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' });
});

test('a large result, offloaded: result_ref in the reply, a resource_link whose presigned URL the local run serves', async () => {
  const result = await client.callTool({ name: 'c___large', arguments: { size: 100_000 } });
  expect(result.isError).toBe(false);
  expect(result).not.toHaveProperty('structuredContent');
  const reply = JSON.parse((result.content as any[])[0].text);
  expect(reply).not.toHaveProperty('result');
  expect(reply.result_ref).toMatchObject({ uri: expect.stringMatching(/^s3:\/\//), bytes: 100_011, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  const link = (result.content as any[]).find((c) => c.type === 'resource_link');
  expect(link).toMatchObject({ uri: reply.result_ref.url, mimeType: 'application/json' });
  const fetched = await fetch(link.uri);
  expect(fetched.status).toBe(200);
  expect(await fetched.json()).toEqual({ data: 'x'.repeat(100_000) });
});

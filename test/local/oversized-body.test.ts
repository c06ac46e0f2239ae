/**
 * No local endpoint reads a body it must refuse: a request without the run's signature (or, for
 * MCP, its bearer token) is refused from its headers, and a signed one over the endpoint's limit
 * (AWS's own, local/body-limits.ts) is refused at the limit; either way the connection closes, so
 * the rest is never read. Each endpoint of a real run in a process of its own gets a 256 MB body;
 * what is measured is how much of it the run let in, and how far the run's peak resident memory
 * (VmHWM in /proc/<pid>/status) rose, never how long anything took.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { until } from '../support/until';
import { declareOnly, flood, floodHash, MB, signedHeaders } from './flood';
import { bundleEntry, LOCAL_RUN_ENTRY, removeBundles } from './other-process';
import type { RunInProcess } from './processes/local-run';
import type { Keys } from './raw-aws-request';
import { REPO, removeMade, synthesizeSampleWithGateway } from './sample-assembly';

/** Far less than the body, far more than any endpoint's limit (16 MB) and the sockets' buffers. */
const LET_IN = 64 * MB;
/** How far the run's peak memory may rise while one endpoint is flooded: the largest limit, with room to spare. */
const MEMORY_RISE = 64 * MB;

let child: ChildProcess | undefined;
let stdout = '';
let stderr = '';
let served: RunInProcess;
let payloadHash: string;

beforeAll(async () => {
  const bundle = await bundleEntry(LOCAL_RUN_ENTRY);
  const assembly = synthesizeSampleWithGateway();
  payloadHash = floodHash();
  // The repository as working directory: the SDK clients and dynalite resolve from its node_modules.
  child = spawn(process.execPath, [bundle, assembly], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await until(() => stdout.includes('\n'), 'the run to serve', () => ({ stdout, stderr }), { ms: 60_000, child });
  served = JSON.parse(stdout.split('\n')[0]) as RunInProcess;
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  removeMade();
  removeBundles();
});

/** The run's peak resident memory so far, in bytes. */
function peakMemory(): number {
  const status = fs.readFileSync(`/proc/${child!.pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

interface Door {
  readonly url: () => string;
  /** The headers of an unsigned request (no signature, no bearer token). */
  readonly headers: Record<string, string>;
  /** What refuses it. */
  readonly refused: number;
  /** The headers that let a request in: the run's signature, or its bearer token. */
  readonly admitted: (headers: Record<string, string>) => Promise<Record<string, string>>;
}

const signedBy = (keys: () => Keys, service: string, url: () => string) => (headers: Record<string, string>) =>
  signedHeaders(url(), { keys: keys(), service, region: served.region, headers, payloadHash });

const functionUrl = () => `${served.functionUrl}approvals`;
const invokeUrl = () => `${served.awsEndpoint}/2015-03-31/functions/${encodeURIComponent(served.engineName)}/invocations`;
const putEventsUrl = () => `${served.awsEndpoint}/`;
const dynamoUrl = () => `${served.dynamoEndpoint}/`;

const DOORS: ReadonlyArray<[string, Door]> = [
  [
    'the function URL (the approvals API)',
    { url: functionUrl, headers: { 'content-type': 'application/json' }, refused: 403, admitted: signedBy(() => served.approver, 'lambda', functionUrl) },
  ],
  [
    "Lambda's Invoke (the engine)",
    { url: invokeUrl, headers: {}, refused: 403, admitted: signedBy(() => served.handler, 'lambda', invokeUrl) },
  ],
  [
    "EventBridge's PutEvents",
    {
      url: putEventsUrl,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSEvents.PutEvents' },
      refused: 403,
      admitted: signedBy(() => served.functions, 'events', putEventsUrl),
    },
  ],
  [
    'DynamoDB',
    {
      url: dynamoUrl,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem' },
      refused: 400,
      admitted: signedBy(() => served.functions, 'dynamodb', dynamoUrl),
    },
  ],
  [
    'the MCP server',
    {
      url: () => served.mcpUrl,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      refused: 401,
      admitted: async (headers) => ({ ...headers, authorization: `Bearer ${served.mcpToken}` }),
    },
  ],
];

describe.each(DOORS)('%s', (_, door) => {
  test('an unsigned 256 MB body is refused from its headers: the connection closes long before it is sent, and memory stays flat', async () => {
    const before = peakMemory();
    const flooded = await flood(door.url(), door.headers);
    expect(flooded.closed).toBe(true);
    expect(flooded.sent).toBeLessThan(LET_IN);
    if (flooded.status !== undefined) expect(flooded.status).toBe(door.refused);
    expect(peakMemory() - before).toBeLessThan(MEMORY_RISE);
  });

  test('a signed (admitted) 256 MB body is refused at the limit: the connection closes long before it is sent, and memory stays bounded', async () => {
    const before = peakMemory();
    const flooded = await flood(door.url(), await door.admitted(door.headers));
    expect(flooded.closed).toBe(true);
    expect(flooded.sent).toBeLessThan(LET_IN);
    if (flooded.status !== undefined) expect(flooded.status).toBe(413);
    expect(peakMemory() - before).toBeLessThan(MEMORY_RISE);
  });

  test('a declared Content-Length of 256 MB is answered before a byte of the body is sent: unsigned refused, signed 413', async () => {
    expect(await declareOnly(door.url(), door.headers)).toBe(door.refused);
    expect(await declareOnly(door.url(), await door.admitted(door.headers))).toBe(413);
  });
});

test('the run still answers its own after all of it', async () => {
  const reply = await fetch(served.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${served.mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(reply.status).toBe(200);
  expect(((await reply.json()) as any).result.tools.map((t: { name: string }) => t.name)).toContain('sample___add');
});

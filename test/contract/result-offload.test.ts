/**
 * Results too big for the way back. Without an offload store, a result just under each host's limit
 * travels and one just over is a `ToolFailed` that says so (a direct invoke and a Gateway call: 6 MB;
 * SQS and EventBridge calls, whose reply goes to a bus: 1 MB; less the reply's reserve). With one
 * (`S3ResultOffload`, the real @aws-sdk/client-s3 and s3-request-presigner against local/s3.ts), a
 * result above the threshold is written under the owner's prefix and the reply carries `result_ref`;
 * a Gateway reply adds a presigned URL that fetches it (and a tampered one does not); kept and
 * published replies hold the reference only.
 */
import { createHash } from 'node:crypto';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type ErrorReply, type Reply, type ToolHandlerOptions } from '../../lambda';
import { callFingerprint } from '../../lambda/ids';
import { RESULT_LIMITS } from '../../lambda/result-offload';
import { S3ResultOffload } from '../../lambda/result-offload-s3';
import { startS3, type LocalS3 } from '../../local/s3';
import { captureLogs, eventBridgeEvent, gatewayContext, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { LOCAL_AWS_ACCESS, LOCAL_AWS_ENV } from '../support/local-aws';

/** Answers a string whose JSON is exactly `bytes` bytes. */
const big = tool({ name: 'big', run: ({ bytes }: { bytes?: unknown }) => 'x'.repeat(Number(bytes) - 2) });

let s3: LocalS3;
const published: Array<Reply | ErrorReply> = [];
const saved = { ...process.env };

beforeAll(async () => {
  s3 = await startS3(LOCAL_AWS_ACCESS);
  Object.assign(process.env, LOCAL_AWS_ENV, { AWS_ENDPOINT_URL_S3: s3.url });
});
afterAll(async () => {
  process.env = saved;
  await s3.close();
});

function handler(options: ToolHandlerOptions = {}, calls?: MemoryApprovalStore) {
  const executor = new ToolExecutor({ tools: [big], approvals: false, ...(calls ? { calls } : {}) });
  return toolHandler(executor, { replies: { publish: async (reply) => void published.push(reply) }, resultOffload: false, ...options });
}

async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const logs = captureLogs();
  try {
    return await work();
  } finally {
    logs.restore();
  }
}

const outcome = (promise: Promise<unknown>) => promise.then((reply) => (reply as Reply).status, (error: Error) => `${error.name}: ${error.message}`);

describe('without resultOffload: just under each host\'s limit travels, just over is a ToolFailed that says so', () => {
  test('a direct invoke (6 MB, less the reserve)', async () => {
    const h = handler();
    expect(await quietly(() => outcome(h({ tool: 'big', args: { bytes: RESULT_LIMITS.sync } })))).toBe('ok');
    expect(await quietly(() => outcome(h({ tool: 'big', args: { bytes: RESULT_LIMITS.sync + 1 } })))).toBe(
      `ToolFailed: Tool big returned a result of ${RESULT_LIMITS.sync + 1} bytes of JSON, over the ${RESULT_LIMITS.sync} bytes this call's reply can carry: ` +
        'return less, or set `resultOffload` on the ToolHandler so that large results travel by reference.',
    );
  });

  test('an AgentCore Gateway call (6 MB): the error as a reply', async () => {
    const h = handler();
    const under = (await quietly(() => h({ bytes: RESULT_LIMITS.sync }, gatewayContext('t___big')))) as Reply;
    expect(under.status).toBe('ok');
    const over = (await quietly(() => h({ bytes: RESULT_LIMITS.sync + 1 }, gatewayContext('t___big')))) as ErrorReply;
    expect(over).toMatchObject({ status: 'error', error: { type: 'ToolFailed', message: expect.stringContaining('over the') } });
  });

  test('an SQS call (its reply goes to a bus: 1 MB); the failure is not retryable, so SQS does not run the tool again for the same too-big result', async () => {
    published.length = 0;
    const h = handler();
    const answer: any = await quietly(() =>
      h(sqsEvent(sqsRecord('under', { tool: 'big', args: { bytes: RESULT_LIMITS.bus } }), sqsRecord('over', { tool: 'big', args: { bytes: RESULT_LIMITS.bus + 1 } })), lambdaContext(30_000)),
    );
    // The error reply reached the bus and cannot change by retrying: the record is done, not redelivered.
    expect(answer.batchItemFailures).toEqual([]);
    expect(published.map((r) => (r.status === 'error' ? `${r.error.type} ${r.error.retryable}` : r.status)).sort()).toEqual(['ToolFailed false', 'ok']);
  });

  test('a direct invoke: the ToolFailed is not retryable', async () => {
    const error = await quietly(() => handler()({ tool: 'big', args: { bytes: RESULT_LIMITS.sync + 1 } }).then(() => undefined, (e: unknown) => e));
    expect(error).toMatchObject({ name: 'ToolFailed', retryable: false });
  });

  test('an EventBridge call (1 MB)', async () => {
    const h = handler();
    expect(await quietly(() => outcome(h(eventBridgeEvent('e1', { tool: 'big', args: { bytes: RESULT_LIMITS.bus } }), lambdaContext(30_000))))).toBe('ok');
    expect(await quietly(() => outcome(h(eventBridgeEvent('e2', { tool: 'big', args: { bytes: RESULT_LIMITS.bus + 1 } }), lambdaContext(30_000))))).toMatch(/^ToolFailed: .* over the 1040384 bytes/);
  });
});

describe('with resultOffload', () => {
  const THRESHOLD = 4096;
  const offload = () => new S3ResultOffload({ bucket: 'results', threshold: THRESHOLD, expiryDays: 7 });

  test('just under the threshold: inline; just over: written under the owner\'s prefix, the reply carries result_ref and no result', async () => {
    const h = handler({ resultOffload: offload() });
    const under = (await quietly(() => h({ tool: 'big', args: { bytes: THRESHOLD } }))) as Reply;
    expect(under).toHaveProperty('result');
    const over = (await quietly(() => h({ tool: 'big', args: { bytes: THRESHOLD + 1 } }))) as Extract<Reply, { status: 'ok' }>;
    expect(over).not.toHaveProperty('result');
    const json = JSON.stringify('x'.repeat(THRESHOLD - 1));
    expect(over.result_ref).toEqual({
      uri: expect.stringMatching(/^s3:\/\/results\/handler\/[A-Za-z0-9_-]{43}\.json$/),
      bytes: THRESHOLD + 1,
      sha256: createHash('sha256').update(json).digest('hex'),
      expires_at: expect.any(String),
    });
    const days = (Date.parse(over.result_ref!.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(s3.objects.get(over.result_ref!.uri.slice('s3://'.length))?.toString('utf8')).toBe(json);
  });

  test('a Gateway reply adds a presigned URL that fetches the result; a tampered one is refused; kept and published replies hold the reference only', async () => {
    published.length = 0;
    const calls = new MemoryApprovalStore();
    const h = handler({ resultOffload: offload() }, calls);
    const reply = (await quietly(() => h({ bytes: 10_000 }, gatewayContext('t___big', 'session-1')))) as Extract<Reply, { status: 'ok' }>;
    const ref = reply.result_ref!;
    expect(ref.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/results\/handler\/.*X-Amz-Signature=/);
    expect(Number(new URL(ref.url!).searchParams.get('X-Amz-Expires'))).toBe(7 * 24 * 3600);
    const fetched = await fetch(ref.url!);
    expect(fetched.status).toBe(200);
    const body = await fetched.text();
    expect(createHash('sha256').update(body).digest('hex')).toBe(ref.sha256);
    expect(JSON.parse(body)).toHaveLength(10_000 - 2);

    const tampered = new URL(ref.url!);
    tampered.pathname = tampered.pathname.replace('handler/', 'other/');
    expect((await fetch(tampered)).status).toBe(403);
    const unsigned = new URL(ref.url!);
    unsigned.search = '';
    expect((await fetch(unsigned)).status).toBe(403);

    expect(published).toHaveLength(1);
    expect((published[0] as any).result_ref).toEqual({ uri: ref.uri, bytes: ref.bytes, sha256: ref.sha256, expires_at: ref.expires_at });
    const kept = await calls.begin({ runId: reply.run_id, callId: reply.call_id }, { fingerprint: callFingerprint('big', { bytes: 10_000 }), leaseUntil: Date.now() + 1000 });
    expect(kept.state).toBe('done');
    expect((kept as any).reply.result_ref).not.toHaveProperty('url');
  });
});

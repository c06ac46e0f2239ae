/**
 * Every key the store writes stays within DynamoDB's 2,048-byte partition key
 * limit (and the approvals index's) for every envelope the runtime accepts, and two calls never share a key.
 * dynalite counts UTF-16 units, not bytes, so the byte lengths are asserted here.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoApprovalStore, MAX_ENVELOPE_BYTES, parseEnvelope, tool, toolHandler, ToolExecutor } from '../../lambda';
import { createTestTable } from '../support/dynamo';
import { approvalIdFor } from '../../lambda/ids';
import { TABLE } from '../../lambda/construct-contract';
import { approvalKey, callKey, MAX_PARTITION_KEY_BYTES } from '../../lambda/stores/dynamo-items';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { countingHandler } from '../support/counting-tools';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const OWNER = 'handler';
/** The longest owner the construct accepts. */
const LONGEST_OWNER = 'o'.repeat(64);
const pk = (key: Record<string, string>) => key[TABLE.partitionKey];

/** 256 code points of 4-byte UTF-8: the longest id an envelope may carry, in bytes. */
const EMOJI_ID = '😀'.repeat(256);
/** As long, differing only in its last code point. */
const EMOJI_ID_2 = '😀'.repeat(255) + '😁';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

describe('call keys', () => {
  test('the worst case an envelope may carry (two 256-emoji ids) is a hashed key within the limit', () => {
    const envelope = parseEnvelope({ tool: 'charge', run_id: EMOJI_ID, call_id: EMOJI_ID });
    for (const owner of [OWNER, LONGEST_OWNER]) {
      const key = pk(callKey(owner, { runId: envelope.runId!, callId: envelope.callId! }));
      expect(bytes(key)).toBeLessThanOrEqual(MAX_PARTITION_KEY_BYTES);
      expect(key).toMatch(new RegExp(`^call#${owner}#~[A-Za-z0-9_-]{43}$`));
    }
  });

  test.each([
    // `call#handler#["` + 1024 + `","` + 1004 + `"]` = 2048 bytes: the longest plain key.
    ['exactly 2,048 bytes stays plain', EMOJI_ID, '😀'.repeat(251), 'plain'],
    ['2,049 bytes is hashed', EMOJI_ID, '😀'.repeat(251) + 'a', 'hashed'],
    ['256 three-byte characters each stay plain', '€'.repeat(256), '€'.repeat(256), 'plain'],
    ['quotes and backslashes that JSON escapes', '"\\'.repeat(128), '"\\'.repeat(128), 'plain'],
  ])('%s', (_name, runId, callId, form) => {
    const key = pk(callKey(OWNER, { runId, callId }));
    expect(bytes(key)).toBeLessThanOrEqual(MAX_PARTITION_KEY_BYTES);
    expect(key.startsWith(`call#${OWNER}#~`)).toBe(form === 'hashed');
    if (form === 'plain') expect(key).toBe(`call#${OWNER}#${JSON.stringify([runId, callId])}`);
  });

  test('different calls never share a key, plain or hashed', () => {
    const pairs: Array<[string, string]> = [
      [EMOJI_ID, EMOJI_ID],
      [EMOJI_ID, EMOJI_ID_2],
      [EMOJI_ID_2, EMOJI_ID],
      ['a', 'b'],
      ['a","b', 'c'],
      ['a', '","b'],
      ['~', 'x'],
    ];
    const keys = pairs.map(([runId, callId]) => pk(callKey(OWNER, { runId, callId })));
    expect(new Set(keys).size).toBe(pairs.length);
    // A plain key starts `call#<owner>#[`, a hashed one `call#<owner>#~`: the forms cannot meet.
    for (const key of keys) expect(key).toMatch(/^call#handler#(\[|~)/);
    // Nor can two owners' keys: an owner never holds `#`, so the owner ends at the first `#` after `call#`.
    const other = pairs.map(([runId, callId]) => pk(callKey('handler2', { runId, callId })));
    for (const key of other) expect(keys).not.toContain(key);
  });
});

describe('approval keys', () => {
  test('a 256-emoji approval id (a resume the runtime accepts) keys within the limit', () => {
    expect(parseEnvelope({ approval_id: EMOJI_ID })).toMatchObject({ approvalId: EMOJI_ID });
    expect(bytes(pk(approvalKey(OWNER, EMOJI_ID)))).toBe(9 + 8 + 1024);
    expect(bytes(pk(approvalKey(LONGEST_OWNER, EMOJI_ID)))).toBeLessThanOrEqual(MAX_PARTITION_KEY_BYTES);
  });

  test('approvals created for calls have short ids whatever the call ids', () => {
    const id = approvalIdFor(EMOJI_ID, EMOJI_ID);
    expect(id).toMatch(/^apr_[A-Za-z0-9_-]{32}$/);
  });
});

describe('through the handler on dynalite', () => {
  test('worst-case ids: the call runs once, a redelivery gets the kept reply, a near-twin call is its own', async () => {
    const { client, tableName, runs, handler } = await countingHandler();
    const call = (callId: string) => ({ tool: 'charge', args: { id: callId === EMOJI_ID ? 'one' : 'two' }, run_id: EMOJI_ID, call_id: callId });
    expect(await handler(sqsEvent(sqsRecord('m-1', call(EMOJI_ID))), lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
    expect(await handler(sqsEvent(sqsRecord('m-1', call(EMOJI_ID))), lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
    expect(await handler(sqsEvent(sqsRecord('m-2', call(EMOJI_ID_2))), lambdaContext(10_000))).toEqual({ batchItemFailures: [] });
    expect(Object.fromEntries(runs)).toEqual({ one: 1, two: 1 });

    const { Items = [] } = await client.send(new ScanCommand({ TableName: tableName }));
    const keys = Items.map((item) => String(item[TABLE.partitionKey]));
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(bytes(key)).toBeLessThanOrEqual(MAX_PARTITION_KEY_BYTES);
  });

  test('worst-case ids on a call that needs approval: pending, decided, resumed once', async () => {
    const { store, runs, handler } = await countingHandler();
    const call = { tool: 'refund', args: { id: 'r' }, run_id: EMOJI_ID, call_id: EMOJI_ID };
    const { approval_id } = (await handler(call, lambdaContext(10_000))) as { approval_id: string };
    await store.decide(approval_id, { approved: true, by: 'alice' });
    await expect(handler({ approval_id }, lambdaContext(10_000))).resolves.toMatchObject({ status: 'ok', run_id: EMOJI_ID, call_id: EMOJI_ID });
    await expect(handler({ approval_id: EMOJI_ID }, lambdaContext(10_000))).rejects.toMatchObject({ name: 'ApprovalNotFound' });
    expect(runs.get('r')).toBe(1);
  });
});

describe('a maximal envelope (1 MiB, worst-case ids) against every other limit', () => {
  async function echoHandler() {
    const { tableName, client } = await createTestTable();
    const store = new DynamoApprovalStore({ tableName, client });
    let runs = 0;
    const echo = tool({ name: 'echo', run: (args) => (runs++, args) });
    const gated = tool({ name: 'gated', requiresApproval: true, run: () => 'ran' });
    const handler = toolHandler(new ToolExecutor({ tools: [echo, gated], approvals: store }), { replies: false });
    return { handler, runs: () => runs };
  }

  function maximal(toolName: string) {
    const shell = { tool: toolName, args: { blob: '' }, run_id: EMOJI_ID, call_id: EMOJI_ID };
    const room = MAX_ENVELOPE_BYTES - bytes(JSON.stringify(shell));
    const envelope = { ...shell, args: { blob: 'x'.repeat(room) } };
    expect(bytes(JSON.stringify(envelope))).toBe(MAX_ENVELOPE_BYTES);
    return envelope;
  }

  test('a call: runs once; its reply (over the 400 KB item limit) is kept without its result', async () => {
    const { handler, runs } = await echoHandler();
    const envelope = maximal('echo');
    const first = await handler(envelope, lambdaContext(10_000));
    expect(first).toMatchObject({ status: 'ok', run_id: EMOJI_ID, result: envelope.args });
    const again = await handler(envelope, lambdaContext(10_000));
    expect(again).toMatchObject({ status: 'ok', result_omitted: expect.any(String) });
    expect(runs()).toBe(1);
  });

  test('a call that needs approval: args too large for an approval item are a ToolUsageError, not a retryable failure', async () => {
    const { handler } = await echoHandler();
    await expect(handler(maximal('gated'), lambdaContext(10_000))).rejects.toMatchObject({
      name: 'ToolUsageError',
      message: expect.stringMatching(/args are too large for an approval item/),
    });
  });
});

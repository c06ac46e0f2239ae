/**
 * `tool({ readOnly: true })`: never duplicate-suppressed, so a call makes no state store
 * request at all, counted at the SDK (a middleware on the store's own client), against dynalite.
 */
import * as z from 'zod';
import { DynamoApprovalStore, tool, toolHandler, ToolExecutor } from '../../lambda';
import { toolManifest } from '../../lambda/manifest';
import { captureLogs, lambdaContext } from '../support/events';
import { createTestTable } from '../support/dynamo';
import { recordRequests } from '../support/sdk-middleware';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

async function setUp() {
  const { tableName, client } = await createTestTable();
  const store = new DynamoApprovalStore({ tableName, client });
  const runs: string[] = [];
  const lookup = tool({
    name: 'lookup',
    input: z.object({ id: z.string() }),
    readOnly: true,
    run: ({ id }) => {
      runs.push(`lookup:${id}`);
      return { id };
    },
  });
  const write = tool({
    name: 'write',
    input: z.object({ id: z.string() }),
    run: ({ id }) => {
      runs.push(`write:${id}`);
      return { id };
    },
  });
  const handler = toolHandler(new ToolExecutor({ tools: [lookup, write], approvals: store }), { replies: false });
  return { handler, runs, requests: recordRequests(client) };
}

describe('a readOnly tool', () => {
  test('a call makes zero DynamoDB requests, and a redelivery runs it again', async () => {
    const { handler, runs, requests } = await setUp();
    const call = { tool: 'lookup', args: { id: 'a' }, run_id: 'r1', call_id: 'c1' };
    expect(await handler(call, lambdaContext(10_000))).toMatchObject({ status: 'ok', result: { id: 'a' } });
    expect(await handler(call, lambdaContext(10_000))).toMatchObject({ status: 'ok', result: { id: 'a' } });
    expect(requests.sent).toEqual([]);
    expect(requests.attempts).toBe(0);
    expect(runs).toEqual(['lookup:a', 'lookup:a']);
  });

  test('the counter sees the requests of a tool that is not readOnly (so zero above is measured)', async () => {
    const { handler, runs, requests } = await setUp();
    const call = { tool: 'write', args: { id: 'b' }, run_id: 'r2', call_id: 'c2' };
    await handler(call, lambdaContext(10_000));
    await handler(call, lambdaContext(10_000));
    expect(requests.attempts).toBeGreaterThan(0);
    expect(runs).toEqual(['write:b']);
  });
});

describe('definition', () => {
  test.each([
    ['true', true],
    ['a predicate', () => true],
  ])('readOnly with requiresApproval %s is a definition error naming both', (_label, requiresApproval) => {
    expect(() => tool({ name: 'both', readOnly: true, requiresApproval, run: () => 1 })).toThrow(
      'cdk-tool-handler: tool both `readOnly` and `requiresApproval` cannot be combined: a read-only tool is never duplicate-suppressed, ' +
        'so an approved call could run again; drop one of them.',
    );
  });

  test('readOnly with requiresApproval false is allowed', () => {
    expect(tool({ name: 'fine', readOnly: true, requiresApproval: false, run: () => 1 }).readOnly).toBe(true);
  });

  test('the manifest says readOnly and the approval mode', () => {
    const tools = [
      tool({ name: 'a', readOnly: true, run: () => 1 }),
      tool({ name: 'b', requiresApproval: true, run: () => 1 }),
      tool({ name: 'c', requiresApproval: (args) => 'x' in args, run: () => 1 }),
    ];
    expect(toolManifest(tools).map(({ name, approval, readOnly }) => ({ name, approval, readOnly }))).toEqual([
      { name: 'a', approval: 'never', readOnly: true },
      { name: 'b', approval: 'always', readOnly: false },
      { name: 'c', approval: 'depends', readOnly: false },
    ]);
  });
});

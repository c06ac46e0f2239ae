/**
 * `tool({ output })`: the result is checked after the run, on a plain call and on an approval's
 * resume; a mismatch is `ToolOutputInvalid` naming the path, never the value; what the schema parses
 * to is the result; the manifest carries the output JSON Schema; a tool without `output` is as before.
 */
import * as z from 'zod';
import * as zm from 'zod/mini';
import { handleEnvelope, MemoryApprovalStore, tool, ToolExecutor, ToolOutputInvalid, type Reply } from '../../lambda';
import { writeLogLines } from '../../lambda/log';
import { toolManifest } from '../../lambda/manifest';

const SECRET = 'secret-price-7731';

/** What `promise` rejected with. */
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

beforeEach(() => void jest.spyOn(process.stdout, 'write').mockImplementation(() => true));
afterEach(() => {
  writeLogLines();
  jest.restoreAllMocks();
});

const quote = tool({
  name: 'quote',
  input: z.object({ sku: z.string() }),
  output: z.object({ sku: z.string(), price: z.number() }),
  run: ({ sku }) => ({ sku, price: 9.5, internal: 'dropped by the schema' }),
});
const brokenQuote = tool({
  name: 'broken_quote',
  output: z.object({ sku: z.string(), price: z.number() }),
  // Typed as the schema's input would refuse it: a tool may still return anything at run time.
  run: () => ({ sku: 'a', price: SECRET }) as unknown as { sku: string; price: number },
});
const refund = tool({
  name: 'refund',
  input: z.object({ orderId: z.string() }),
  output: z.object({ refunded: z.string() }),
  requiresApproval: true,
  run: ({ orderId }) => ({ refunded: orderId === 'bad' ? 42 : orderId }) as { refunded: string },
});
const plain = tool({ name: 'plain', run: () => ({ anything: [1, 'two'] }) });

function executor() {
  const approvals = new MemoryApprovalStore();
  return { approvals, executor: new ToolExecutor({ tools: [quote, brokenQuote, refund, plain], approvals }) };
}

test('a matching result is what the schema parses to: unknown keys are stripped', async () => {
  const reply = await handleEnvelope(executor().executor, { tool: 'quote', args: { sku: 's1' } });
  expect(reply).toMatchObject({ status: 'ok', result: { sku: 's1', price: 9.5 } });
  expect((reply as { result: object }).result).not.toHaveProperty('internal');
});

test('a result that does not match is ToolOutputInvalid: not retryable, names the path, never the value', async () => {
  const error = await rejection(handleEnvelope(executor().executor, { tool: 'broken_quote', args: {} }));
  expect(error).toBeInstanceOf(ToolOutputInvalid);
  expect(error).toMatchObject({ name: 'ToolOutputInvalid', retryable: false });
  expect((error as Error).message).toMatch(/^Tool broken_quote returned a result that does not match its `output` schema: `result\.price`: /);
  expect((error as Error).message).not.toContain(SECRET);
});

test('the resume of an approval checks the result too', async () => {
  const { approvals, executor: ex } = executor();
  for (const [orderId, expected] of [['o1', 'ok'], ['bad', 'ToolOutputInvalid']] as const) {
    const pending = (await handleEnvelope(ex, { tool: 'refund', args: { orderId } })) as Extract<Reply, { status: 'pending_approval' }>;
    await approvals.decide(pending.approval_id, { approved: true, by: 'alice' });
    const outcome = await handleEnvelope(ex, { approval_id: pending.approval_id }).then(
      (reply) => reply.status,
      (error: Error) => error.name,
    );
    expect(outcome).toBe(expected);
  }
});

test('a tool without `output` returns its result unchecked', async () => {
  const reply = await handleEnvelope(executor().executor, { tool: 'plain', args: {} });
  expect(reply).toMatchObject({ status: 'ok', result: { anything: [1, 'two'] } });
  expect(plain.parseResult).toBeUndefined();
});

test('`output` must be a zod schema: anything else throws at definition, naming the option', () => {
  expect(() => tool({ name: 't', output: { type: 'object' } as unknown as z.ZodNumber, run: () => 1 })).toThrow(
    'cdk-tool-handler: tool t `output` must be a zod 4 schema, got: object.',
  );
});

test('a zod/mini output schema checks results too', async () => {
  const mini = tool({ name: 'mini', output: zm.object({ n: zm.number() }), run: () => ({ n: 'x' }) as unknown as { n: number } });
  const error = await rejection(handleEnvelope(new ToolExecutor({ tools: [mini], approvals: false }), { tool: 'mini', args: {} }));
  expect(error).toMatchObject({ name: 'ToolOutputInvalid', message: expect.stringContaining('`result.n`') });
});

test('the manifest carries the output JSON Schema (output side), and none for a tool without one', () => {
  const [q, , , p] = toolManifest([quote, brokenQuote, refund, plain]);
  expect(q.outputSchema).toMatchObject({
    type: 'object',
    properties: { sku: { type: 'string' }, price: { type: 'number' } },
    required: ['sku', 'price'],
  });
  expect(p).not.toHaveProperty('outputSchema');
});

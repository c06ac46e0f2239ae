/**
 * `tool()` and `ToolExecutor`'s tool list: names checked at definition, args validated by the
 * zod input schema (errors name the path), `requiresApproval` as a boolean or a predicate over the
 * parsed args, async refinements, duplicate names.
 */
import * as z from 'zod';
import { handleEnvelope, MemoryApprovalStore, tool, ToolExecutor, ToolUsageError } from '../../lambda';
import { captureLogs } from '../support/events';
import { thrown } from '../support/thrown';


/** What parsing `args` threw or rejected with: works whether parseArgs is sync or async. */
async function parseFailure(t: { parseArgs(args: Record<string, unknown>): unknown }, args: Record<string, unknown>): Promise<unknown> {
  return Promise.resolve()
    .then(() => t.parseArgs(args))
    .then(
      (value) => {
        throw new Error(`expected args to be rejected, got ${JSON.stringify(value)}`);
      },
      (error: unknown) => error,
    );
}

function expectUsageError(error: unknown, patterns: readonly RegExp[]): void {
  expect(error).toBeInstanceOf(ToolUsageError);
  expect((error as ToolUsageError).name).toBe('ToolUsageError');
  expect((error as ToolUsageError).retryable).toBe(false);
  for (const pattern of patterns) expect((error as Error).message).toMatch(pattern);
}

const run = () => 'ran';

describe('tool(): the name is checked at definition', () => {
  test.each([
    ['empty', ''],
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'add numbers'],
    ['a slash', 'math/add'],
    ['a colon', 'a:b'],
    ['a non-ASCII letter', 'caf\u00e9'],
    ['a trailing newline', 'add\n'],
    ['an emoji', 'add\u{1F600}'],
  ])('a name with %s throws naming the name', (_what, name) => {
    const error = thrown(() => tool({ name, run }));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(JSON.stringify(name));
    expect((error as Error).message).toMatch(/name/);
  });

  test('a name that is not a string throws', () => {
    expect(() => tool({ name: 42 as unknown as string, run })).toThrow(/name/);
  });

  test.each([
    ['1 character', 'a'],
    ['128 characters', 'a'.repeat(128)],
    ['every allowed kind of character', 'Az09_.-'],
  ])('a name of %s is accepted', (_what, name) => {
    expect(tool({ name, run }).name).toBe(name);
  });

  test('description and input are kept', () => {
    const input = z.object({ a: z.number() });
    const t = tool({ name: 'add', description: 'adds', input, run });
    expect(t.description).toBe('adds');
    expect(t.input).toBe(input);
  });
});

describe('args are validated by the zod input schema', () => {
  const add = tool({
    name: 'add',
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => a + b,
  });

  test('good args parse to the schema output', async () => {
    expect(await add.parseArgs({ a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
  });

  test('a bad arg throws a ToolUsageError naming the path args.a', async () => {
    const error = await parseFailure(add, { a: 'one', b: 2 });
    expectUsageError(error, [/`args\.a`/, /\badd\b/]);
    expect((error as Error).message).not.toMatch(/`args\.b`/);
  });

  test('a missing arg throws naming its path', async () => {
    expectUsageError(
      await parseFailure(add, { a: 1 }),
      [/`args\.b`/],
    );
  });

  test('several bad args are all named', async () => {
    expectUsageError(
      await parseFailure(add, { a: 'x', b: 'y' }),
      [/`args\.a`/, /`args\.b`/],
    );
  });

  test('a nested bad arg names its path with array indexes: args.items[0].id', async () => {
    const order = tool({
      name: 'order',
      input: z.object({ items: z.array(z.object({ id: z.string(), qty: z.number().int() })) }),
      run,
    });
    expectUsageError(
      await parseFailure(order, { items: [{ id: 7, qty: 1 }] }),
      [/`args\.items\[0\]\.id`/],
    );
    expectUsageError(
      await parseFailure(order, { items: [{ id: 'a', qty: 1 }, { id: 'b', qty: 1.5 }] }),
      [/`args\.items\[1\]\.qty`/],
    );
  });

  test('an unknown key in a strict schema is reported', async () => {
    const strict = tool({ name: 'strict', input: z.strictObject({ a: z.number() }), run });
    expectUsageError(
      await parseFailure(strict, { a: 1, extra: true }),
      [/extra/],
    );
  });

  test('the schema output (transforms, defaults) is what parseArgs returns', async () => {
    const t = tool({
      name: 't',
      input: z.object({ n: z.string().transform(Number), flag: z.boolean().default(false) }),
      run,
    });
    expect(await t.parseArgs({ n: '12' })).toEqual({ n: 12, flag: false });
  });

  test('the error keeps the zod error as its cause', async () => {
    const error = (await parseFailure(add, { a: 'one', b: 2 })) as Error;
    expect(error.cause).toBeInstanceOf(z.ZodError);
  });
});

describe('a tool without `input` passes args through unchanged', () => {
  test('parseArgs returns the same object', async () => {
    const t = tool({ name: 'free', run });
    const args = { anything: [1, { deep: true }], s: 'x' };
    expect(await t.parseArgs(args)).toBe(args);
    expect(args).toEqual({ anything: [1, { deep: true }], s: 'x' });
  });

  test('run gets the args as the envelope carried them', async () => {
    const seen: unknown[] = [];
    const t = tool({ name: 'free', run: (args) => void seen.push(args) });
    const executor = new ToolExecutor({ tools: [t], approvals: false });
    const logs = captureLogs();
    try {
      await handleEnvelope(executor, { tool: 'free', args: { x: [1, 2], y: { z: null } } });
    } finally {
      logs.restore();
    }
    expect(seen).toEqual([{ x: [1, 2], y: { z: null } }]);
  });
});

describe('requiresApproval', () => {
  test('defaults to false', () => {
    expect(tool({ name: 't', run }).needsApproval({})).toBe(false);
  });

  test.each([true, false])('as a boolean (%s) applies to every call', (requiresApproval) => {
    const t = tool({ name: 't', requiresApproval, run });
    expect(t.needsApproval({})).toBe(requiresApproval);
    expect(t.needsApproval({ any: 'thing' })).toBe(requiresApproval);
  });

  test('as a predicate it decides per call', () => {
    const refund = tool({
      name: 'refund',
      input: z.object({ amount: z.number() }),
      requiresApproval: ({ amount }) => amount > 100,
      run,
    });
    expect(refund.needsApproval({ amount: 500 })).toBe(true);
    expect(refund.needsApproval({ amount: 5 })).toBe(false);
  });

  describe('the predicate sees the PARSED args when a call runs', () => {
    const predicate = jest.fn((args: { amount: number }) => args.amount > 100);
    const refund = tool({
      name: 'refund',
      // The wire carries a string; the schema turns it into a number.
      input: z.object({ amount: z.string().transform(Number) }),
      requiresApproval: predicate,
      run: ({ amount }) => ({ refunded: amount }),
    });
    let logs: ReturnType<typeof captureLogs>;
    beforeEach(() => {
      predicate.mockClear();
      logs = captureLogs();
    });
    afterEach(() => logs.restore());

    test('a large amount needs approval', async () => {
      const executor = new ToolExecutor({ tools: [refund], approvals: new MemoryApprovalStore() });
      const reply = await handleEnvelope(executor, { tool: 'refund', args: { amount: '500' } });
      expect(reply.status).toBe('pending_approval');
      expect(predicate).toHaveBeenCalledWith({ amount: 500 });
    });

    test('a small amount runs at once', async () => {
      const executor = new ToolExecutor({ tools: [refund], approvals: new MemoryApprovalStore() });
      const reply = await handleEnvelope(executor, { tool: 'refund', args: { amount: '5' } });
      expect(reply).toMatchObject({ status: 'ok', result: { refunded: 5 } });
      expect(predicate).toHaveBeenCalledWith({ amount: 5 });
    });
  });
});

describe('async zod refinements', () => {
  const lookup = tool({
    name: 'lookup',
    input: z.object({
      order: z.object({
        id: z.string().refine(async (id) => id.startsWith('ord_'), { message: 'no such order' }),
      }),
    }),
    run,
  });

  test('good args: parseArgs returns a promise of the parsed args', async () => {
    const parsed = lookup.parseArgs({ order: { id: 'ord_1' } });
    expect(parsed).toBeInstanceOf(Promise);
    await expect(parsed).resolves.toEqual({ order: { id: 'ord_1' } });
  });

  test('bad args: the promise rejects with a ToolUsageError naming the path', async () => {
    const parsed = lookup.parseArgs({ order: { id: 'nope' } });
    expect(parsed).toBeInstanceOf(Promise);
    const error = await (parsed as Promise<unknown>).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectUsageError(error, [/`args\.order\.id`/, /no such order/]);
  });

  test('a sync failure next to an async refinement is still named', async () => {
    const t = tool({
      name: 't',
      input: z.object({ a: z.string().refine(async () => true), b: z.number() }),
      run,
    });
    expectUsageError(await parseFailure(t, { a: 'x', b: 'not a number' }), [/`args\.b`/]);
  });

  test('an async refinement runs once per parse', async () => {
    let calls = 0;
    const t = tool({
      name: 't',
      input: z.object({
        a: z.string().refine(async () => {
          calls++;
          return true;
        }),
      }),
      run,
    });
    await t.parseArgs({ a: 'x' });
    // A refinement may do I/O (a lookup): running it twice doubles that, and the first run's
    // promise is left without a handler.
    expect(calls).toBe(1);
  });

  test('an async refinement that throws rejects parseArgs and leaves no unhandled rejection behind', async () => {
    const t = tool({
      name: 't',
      input: z.object({
        a: z.string().refine(async () => {
          throw new Error('lookup service down');
        }),
      }),
      run,
    });
    const error = await parseFailure(t, { a: 'x' });
    expect((error as Error).message).toMatch(/lookup service down/);
    // In Lambda an unhandled rejection fails the whole invocation (every record of a batch);
    // jest fails this test if one surfaces while it waits.
    await new Promise((resolve) => setTimeout(resolve, 20));
  });

  test('through the executor, bad async args are a ToolUsageError naming the path', async () => {
    const executor = new ToolExecutor({ tools: [lookup], approvals: false });
    const logs = captureLogs();
    try {
      const error = await handleEnvelope(executor, { tool: 'lookup', args: { order: { id: 'nope' } } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expectUsageError(error, [/`args\.order\.id`/]);
    } finally {
      logs.restore();
    }
  });
});

describe('ToolExecutor: tool names must be unique', () => {
  test('two tools with the same name throw naming the duplicate', () => {
    const a = tool({ name: 'dup_name', run });
    const a2 = tool({ name: 'dup_name', run: () => 'other' });
    const error = thrown(() => new ToolExecutor({ tools: [a, a2], approvals: false }));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/\bdup_name\b/);
  });

  test('the same tool object listed twice throws too', () => {
    const a = tool({ name: 'twice', run });
    expect(() => new ToolExecutor({ tools: [a, a], approvals: false })).toThrow(/\btwice\b/);
  });

  test('distinct names are accepted and listed', () => {
    const executor = new ToolExecutor({
      tools: [tool({ name: 'a', run }), tool({ name: 'b', run })],
      approvals: false,
    });
    expect(executor.toolNames.sort()).toEqual(['a', 'b']);
  });
});

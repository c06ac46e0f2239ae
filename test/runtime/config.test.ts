/**
 * `toolHandler` configuration: `tools`, `timeout` and `margin` come from the options and from
 * the environment (with the construct's whole numbers: receive count, offload threshold and expiry), read once when `toolHandler` is called; where both are given the stricter wins; a
 * value that does not parse makes `toolHandler` throw naming the variable.
 */
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, ToolNotFound } from '../../lambda';
import type { OkReply, Tool, ToolLambdaHandler } from '../../lambda';

const ENV_KEYS = [
  'TOOL_HANDLER_TOOLS',
  'TOOL_HANDLER_TIMEOUT_S',
  'TOOL_HANDLER_MARGIN_S',
  'TOOL_HANDLER_APPROVALS_TABLE',
  'TOOL_HANDLER_APPROVAL_TTL_S',
  'TOOL_HANDLER_REPLY_BUS',
  'TOOL_HANDLER_MAX_RECEIVE_COUNT',
  'TOOL_HANDLER_RESULT_BUCKET',
  'TOOL_HANDLER_RESULT_THRESHOLD_BYTES',
  'TOOL_HANDLER_RESULT_EXPIRY_DAYS',
] as const;

let savedEnv: NodeJS.ProcessEnv;
let write: jest.SpiedFunction<typeof process.stdout.write>;

beforeEach(() => {
  savedEnv = { ...process.env };
  for (const key of ENV_KEYS) delete process.env[key];
  write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
});

afterEach(() => {
  write.mockRestore();
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

const echo = (name: string) => tool({ name, run: () => name });

/** A tool that reports the deadline its context carried. */
const deadlineTool = tool({ name: 'deadline', run: (_args, ctx) => ({ deadline: ctx.deadline }) });

const TOOLS: readonly Tool<any>[] = [echo('a'), echo('b'), echo('c'), deadlineTool];

function executor(): ToolExecutor {
  return new ToolExecutor({ tools: TOOLS, approvals: new MemoryApprovalStore() });
}

/** Invokes `handler` directly and returns (deadline - time of the invoke) in ms. */
async function budgetOf(handler: ToolLambdaHandler, context?: { getRemainingTimeInMillis: () => number }): Promise<number> {
  const before = Date.now();
  const reply = (await handler({ tool: 'deadline' }, context)) as OkReply;
  expect(reply.status).toBe('ok');
  return (reply.result as { deadline: number }).deadline - before;
}

async function expectNotFound(handler: ToolLambdaHandler, name: string): Promise<void> {
  const error = await handler({ tool: name }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolNotFound);
  expect((error as Error).message).toContain(name);
}

async function expectRuns(handler: ToolLambdaHandler, name: string): Promise<void> {
  await expect(handler({ tool: name })).resolves.toMatchObject({ status: 'ok', tool: name, result: name });
}

describe('a value that does not parse makes toolHandler throw, naming the variable', () => {
  test.each([
    ['TOOL_HANDLER_TIMEOUT_S', 'abc'],
    ['TOOL_HANDLER_TIMEOUT_S', '-1'],
    ['TOOL_HANDLER_TIMEOUT_S', '0'],
    ['TOOL_HANDLER_TIMEOUT_S', '5s'],
    ['TOOL_HANDLER_TIMEOUT_S', 'Infinity'],
    ['TOOL_HANDLER_MARGIN_S', '-1'],
    ['TOOL_HANDLER_MARGIN_S', 'abc'],
    ['TOOL_HANDLER_TOOLS', 'good,bad name'],
    ['TOOL_HANDLER_TOOLS', 'good,math/add'],
    ['TOOL_HANDLER_MAX_RECEIVE_COUNT', 'abc'],
    ['TOOL_HANDLER_MAX_RECEIVE_COUNT', '0'],
    ['TOOL_HANDLER_MAX_RECEIVE_COUNT', '2.5'],
    ['TOOL_HANDLER_RESULT_THRESHOLD_BYTES', '0'],
    ['TOOL_HANDLER_RESULT_THRESHOLD_BYTES', '1kb'],
    ['TOOL_HANDLER_RESULT_EXPIRY_DAYS', '-7'],
  ])('%s=%j', (variable, value) => {
    process.env.TOOL_HANDLER_RESULT_BUCKET = 'results'; // the offload variables are read only with a bucket
    process.env[variable] = value;
    expect(() => toolHandler([...TOOLS])).toThrow(new RegExp(variable));
    expect(() => toolHandler(executor())).toThrow(new RegExp(variable));
  });

  test('the message also shows the bad value', () => {
    process.env.TOOL_HANDLER_TOOLS = 'good,bad name';
    expect(() => toolHandler(executor())).toThrow(/bad name/);
  });

  test('TOOL_HANDLER_MARGIN_S=0 is allowed', () => {
    process.env.TOOL_HANDLER_MARGIN_S = '0';
    expect(() => toolHandler(executor())).not.toThrow();
  });

  test('unset variables are fine', () => {
    expect(() => toolHandler([...TOOLS])).not.toThrow();
  });

  test('an empty whole-number variable is unset, as an empty seconds variable is', () => {
    process.env.TOOL_HANDLER_RESULT_BUCKET = 'results';
    for (const variable of ['TOOL_HANDLER_MAX_RECEIVE_COUNT', 'TOOL_HANDLER_RESULT_THRESHOLD_BYTES', 'TOOL_HANDLER_RESULT_EXPIRY_DAYS']) {
      process.env[variable] = ' ';
    }
    expect(() => toolHandler(executor())).not.toThrow();
  });

  test('the message says what the number counts', () => {
    process.env.TOOL_HANDLER_RESULT_BUCKET = 'results';
    process.env.TOOL_HANDLER_RESULT_EXPIRY_DAYS = '0';
    expect(() => toolHandler(executor())).toThrow('TOOL_HANDLER_RESULT_EXPIRY_DAYS must be a whole number of days of at least 1, got: "0".');
  });
});

describe('the allowlist: option `tools` intersected with TOOL_HANDLER_TOOLS', () => {
  test('with neither, every tool of the executor runs', async () => {
    const handler = toolHandler(executor());
    await expectRuns(handler, 'a');
    await expectRuns(handler, 'c');
  });

  test('TOOL_HANDLER_TOOLS set but empty allows nothing', async () => {
    process.env.TOOL_HANDLER_TOOLS = '';
    const handler = toolHandler(executor());
    await expectNotFound(handler, 'a');
    await expectNotFound(handler, 'b');
  });

  test('TOOL_HANDLER_TOOLS set but empty allows nothing even when the option lists tools', async () => {
    process.env.TOOL_HANDLER_TOOLS = '';
    const handler = toolHandler(executor(), { tools: ['a'] });
    await expectNotFound(handler, 'a');
  });

  test('option `tools` of [] allows nothing', async () => {
    await expectNotFound(toolHandler(executor(), { tools: [] }), 'a');
  });

  test('the env alone limits what runs', async () => {
    process.env.TOOL_HANDLER_TOOLS = 'a, b';
    const handler = toolHandler(executor());
    await expectRuns(handler, 'a');
    await expectRuns(handler, 'b');
    await expectNotFound(handler, 'c');
  });

  test('the option alone limits what runs', async () => {
    const handler = toolHandler(executor(), { tools: ['b'] });
    await expectRuns(handler, 'b');
    await expectNotFound(handler, 'a');
  });

  test('both given: only a tool in both runs; a tool in only one of them is ToolNotFound', async () => {
    process.env.TOOL_HANDLER_TOOLS = 'b,c';
    const handler = toolHandler(executor(), { tools: ['a', 'b'] });
    await expectRuns(handler, 'b');
    await expectNotFound(handler, 'a'); // only in the option
    await expectNotFound(handler, 'c'); // only in the env
  });

  test('a tool the executor does not have is ToolNotFound even when allowed', async () => {
    process.env.TOOL_HANDLER_TOOLS = 'a,zzz';
    await expectNotFound(toolHandler(executor(), { tools: ['zzz', 'a'] }), 'zzz');
  });

  test('toolHandler over a tools array honours the allowlist the same way', async () => {
    process.env.TOOL_HANDLER_TOOLS = 'a';
    const handler = toolHandler([...TOOLS]);
    await expectRuns(handler, 'a');
    await expectNotFound(handler, 'b');
  });
});

describe('the timeout: the smaller of option and TOOL_HANDLER_TIMEOUT_S wins', () => {
  test('env 2 s, option 5 s: the deadline is about 2 s away', async () => {
    process.env.TOOL_HANDLER_TIMEOUT_S = '2';
    const budget = await budgetOf(toolHandler(executor(), { timeout: 5 }));
    expect(Math.abs(budget - 2000)).toBeLessThanOrEqual(200);
  });

  test('env 5 s, option 2 s: the deadline is about 2 s away', async () => {
    process.env.TOOL_HANDLER_TIMEOUT_S = '5';
    const budget = await budgetOf(toolHandler(executor(), { timeout: 2 }));
    expect(Math.abs(budget - 2000)).toBeLessThanOrEqual(200);
  });

  test('env only: 3 s', async () => {
    process.env.TOOL_HANDLER_TIMEOUT_S = '3';
    expect(Math.abs((await budgetOf(toolHandler(executor()))) - 3000)).toBeLessThanOrEqual(200);
  });

  test('option only: 4 s', async () => {
    expect(Math.abs((await budgetOf(toolHandler(executor(), { timeout: 4 }))) - 4000)).toBeLessThanOrEqual(200);
  });

  test('neither: the default 60 s', async () => {
    expect(Math.abs((await budgetOf(toolHandler(executor()))) - 60_000)).toBeLessThanOrEqual(200);
  });

  test('an empty TOOL_HANDLER_TIMEOUT_S counts as unset', async () => {
    process.env.TOOL_HANDLER_TIMEOUT_S = '';
    expect(Math.abs((await budgetOf(toolHandler(executor(), { timeout: 4 }))) - 4000)).toBeLessThanOrEqual(200);
  });
});

describe('the margin: the larger of option and TOOL_HANDLER_MARGIN_S wins', () => {
  const context = { getRemainingTimeInMillis: () => 10_000 };

  test('env 3 s, option 1 s, 10 s remaining: the deadline is about now + 7 s', async () => {
    process.env.TOOL_HANDLER_MARGIN_S = '3';
    const budget = await budgetOf(toolHandler(executor(), { margin: 1 }), context);
    expect(Math.abs(budget - 7000)).toBeLessThanOrEqual(200);
  });

  test('env 1 s, option 3 s, 10 s remaining: the deadline is about now + 7 s', async () => {
    process.env.TOOL_HANDLER_MARGIN_S = '1';
    const budget = await budgetOf(toolHandler(executor(), { margin: 3 }), context);
    expect(Math.abs(budget - 7000)).toBeLessThanOrEqual(200);
  });

  test('neither: the default margin of 1 s', async () => {
    expect(Math.abs((await budgetOf(toolHandler(executor()), context)) - 9000)).toBeLessThanOrEqual(200);
  });

  test('the timeout still bounds the budget when it is smaller than remaining - margin', async () => {
    process.env.TOOL_HANDLER_MARGIN_S = '3';
    const budget = await budgetOf(toolHandler(executor(), { timeout: 2 }), context);
    expect(Math.abs(budget - 2000)).toBeLessThanOrEqual(200);
  });
});

describe('the environment is read once, when toolHandler is called', () => {
  test('changing TOOL_HANDLER_TIMEOUT_S after creation has no effect', async () => {
    process.env.TOOL_HANDLER_TIMEOUT_S = '2';
    const handler = toolHandler(executor());
    process.env.TOOL_HANDLER_TIMEOUT_S = '30';
    expect(Math.abs((await budgetOf(handler)) - 2000)).toBeLessThanOrEqual(200);
  });

  test('changing TOOL_HANDLER_MARGIN_S after creation has no effect', async () => {
    process.env.TOOL_HANDLER_MARGIN_S = '3';
    const handler = toolHandler(executor());
    process.env.TOOL_HANDLER_MARGIN_S = '0';
    const budget = await budgetOf(handler, { getRemainingTimeInMillis: () => 10_000 });
    expect(Math.abs(budget - 7000)).toBeLessThanOrEqual(200);
  });

  test('changing TOOL_HANDLER_TOOLS after creation has no effect', async () => {
    process.env.TOOL_HANDLER_TOOLS = 'a';
    const handler = toolHandler(executor());
    process.env.TOOL_HANDLER_TOOLS = 'b';
    await expectRuns(handler, 'a');
    await expectNotFound(handler, 'b');
  });

  test('setting TOOL_HANDLER_TOOLS after creation does not restrict a handler created without it', async () => {
    const handler = toolHandler(executor());
    process.env.TOOL_HANDLER_TOOLS = '';
    await expectRuns(handler, 'a');
  });

  test('a bad value set after creation does not break the handler', async () => {
    const handler = toolHandler(executor(), { timeout: 2 });
    process.env.TOOL_HANDLER_TIMEOUT_S = 'abc';
    process.env.TOOL_HANDLER_TOOLS = 'bad name';
    expect(Math.abs((await budgetOf(handler)) - 2000)).toBeLessThanOrEqual(200);
  });
});

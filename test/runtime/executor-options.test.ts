/**
 * "Off" means `false`: `approvals: false` turns the approval store off, like
 * `calls: false`; `approvals: undefined` is the same as leaving it out (the environment decides).
 * Configuration errors are `TypeError`s whose message starts `cdk-tool-handler: ` and names the option.
 */
import { DynamoApprovalStore, DynamoHandlerStore, MemoryApprovalStore, tool, ToolExecutor } from '../../lambda';
import { EngineApprovals } from '../../lambda/approvals/engine-client';
import { ENV } from '../../lambda/construct-contract';
import { DynamoCallStore } from '../../lambda/stores/dynamo-call-store';

const echo = tool({ name: 'echo', run: (args) => args });
const saved = process.env[ENV.approvalsTable];
beforeEach(() => {
  process.env[ENV.approvalsTable] = 'approvals-from-env';
  process.env.AWS_REGION ??= 'us-east-1';
});
afterEach(() => {
  if (saved === undefined) delete process.env[ENV.approvalsTable];
  else process.env[ENV.approvalsTable] = saved;
});

describe('ToolExecutor `approvals`', () => {
  test('undefined is the default: the store the environment names', () => {
    const executor = new ToolExecutor({ tools: [echo], approvals: undefined });
    expect(executor.approvals).toBeInstanceOf(DynamoHandlerStore);
    expect(executor.calls).toBeInstanceOf(DynamoHandlerStore);
    // The approvers' side (decide, list, expire) is not what a handler runs, so not in its bundle.
    expect(executor.approvals).not.toBeInstanceOf(DynamoApprovalStore);
  });

  test('with an approvals engine named (what the construct sets), approvals go to the engine and calls to the table: a store that writes no approval item', () => {
    process.env[ENV.approvalsEngine] = 'engine-from-env';
    try {
      const executor = new ToolExecutor({ tools: [echo], approvals: undefined });
      expect(executor.approvals).toBeInstanceOf(EngineApprovals);
      expect(executor.calls).toBeInstanceOf(DynamoCallStore);
      expect(executor.calls).not.toBeInstanceOf(DynamoHandlerStore);
      expect((executor.calls as unknown as Record<string, unknown>).create).toBeUndefined();
      expect((executor.calls as unknown as Record<string, unknown>).claim).toBeUndefined();
    } finally {
      delete process.env[ENV.approvalsEngine];
    }
  });

  test('false turns approvals off, and duplicate suppression with them', () => {
    const executor = new ToolExecutor({ tools: [echo], approvals: false });
    expect(executor.approvals).toBeUndefined();
    expect(executor.calls).toBeUndefined();
  });

  test('false with `calls` given keeps duplicate suppression on that store', () => {
    const calls = new MemoryApprovalStore();
    const executor = new ToolExecutor({ tools: [echo], approvals: false, calls });
    expect(executor.approvals).toBeUndefined();
    expect(executor.calls).toBe(calls);
  });
});

describe('configuration errors: one style', () => {
  test.each([
    ['a tool name', () => tool({ name: 'bad name', run: () => 1 }), 'cdk-tool-handler: tool `name` must be 1 to 128 characters of A-Z a-z 0-9 _ . -, got: "bad name".'],
    ['a duplicate tool', () => new ToolExecutor({ tools: [echo, echo], approvals: false }), 'cdk-tool-handler: ToolExecutor `tools` has two tools named echo; names must be unique.'],
    ['a store ttl', () => new MemoryApprovalStore({ ttlSeconds: 0 }), 'cdk-tool-handler: approval store `ttlSeconds` must be a positive number of seconds, got: 0.'],
    ['a table name', () => new DynamoApprovalStore({ tableName: '' }), 'cdk-tool-handler: DynamoDB store `tableName` must be the approvals table\'s name, got: "".'],
  ])('%s', (_label, build, message) => {
    expect(build).toThrow(TypeError);
    expect(build).toThrow(message);
  });
});

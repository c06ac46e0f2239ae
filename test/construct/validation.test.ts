import { App, Duration, Stack, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV, replyEventSource, REPLY_SOURCE_ROOT } from '../../lambda/construct-contract';
import { Template } from 'aws-cdk-lib/assertions';
import { ToolHandler, ToolHandlerProps } from '../../lib';
import { ENV as ACCOUNT, props, unbundledApp, withApprovalIndexes } from './helpers';

/** Builds a ToolHandler with `overrides` in a fresh stack; `extra` may make resources it needs. */
function build(overrides: Partial<ToolHandlerProps>, extra?: (stack: Stack) => Partial<ToolHandlerProps>): ToolHandler {
  const stack = new Stack(unbundledApp(), 'Test', { env: ACCOUNT });
  return new ToolHandler(stack, 'Tools', props({ ...overrides, ...(extra ? extra(stack) : {}) }));
}

/** Exactly `message`, not a pattern, after the construct's path (`build` makes `Test/Tools`). */
function expectError(fn: () => unknown, message: string, path = 'Test/Tools'): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(Error);
  expect((thrown as Error).message).toBe(`${path}: ${message}`);
}

const s = Duration.seconds;

describe('allowedTools, and its old name tools', () => {
  const base = (): ToolHandlerProps => {
    const { tools: _old, ...rest } = props({});
    return rest;
  };

  test('allowedTools is the allowlist: the function and the engine get it', () => {
    const stack = new Stack(unbundledApp(), 'Test', { env: ACCOUNT });
    new ToolHandler(stack, 'Tools', { ...base(), allowedTools: ['add', 'refund'] });
    const functions = Object.values<any>(Template.fromStack(stack).toJSON().Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    const lists = functions.map((f) => f.Properties.Environment?.Variables?.[ENV.tools]).filter(Boolean);
    expect(lists).toEqual(['add,refund', 'add,refund']);
  });

  test('neither: the error asks for allowedTools', () => {
    expectError(
      () => new ToolHandler(new Stack(unbundledApp(), 'Test', { env: ACCOUNT }), 'Tools', base()),
      "`allowedTools` must name the tools the function may run, got: none. Add `allowedTools: ['add', ...]`.",
    );
  });

  test('both: the error says tools is its old name', () => {
    expectError(
      () => new ToolHandler(new Stack(unbundledApp(), 'Test', { env: ACCOUNT }), 'Tools', { ...base(), allowedTools: ['add'], tools: ['add'] }),
      'Pass the allowlist as `allowedTools` only: `tools` is its old name, got both.',
    );
  });

  test('errors about the list name the prop it came in', () => {
    expectError(() => build({ tools: undefined, allowedTools: [] }), '`allowedTools` must name at least one tool, got: [].');
  });
});

describe('tools', () => {
  test('must not be empty', () => {
    expectError(() => build({ tools: [] }), '`tools` must name at least one tool, got: [].');
  });

  test.each([
    ['', 0],
    ['has space', 0],
    ['comma,name', 0],
    ['ü', 0],
    ['x'.repeat(129), 0],
  ])('refuses the name %j', (name) => {
    expectError(
      () => build({ tools: ['ok', name] }),
      `\`tools[1]\` must be 1 to 128 characters of A-Z a-z 0-9 _ . -, got: ${JSON.stringify(name)}.`,
    );
  });

  test.each(['a', 'A-z_0.9', 'x'.repeat(128)])('accepts the name %j', (name) => {
    expect(() => build({ tools: [name] })).not.toThrow();
  });

  test('must not repeat a name', () => {
    expectError(() => build({ tools: ['add', 'refund', 'add'] }), '`tools` must not name a tool twice, got: "add" twice.');
  });
});

describe('handler', () => {
  test.each(['index.handler', '1st', 'my-handler', ''])('refuses %j, saying what is allowed', (handler) => {
    expectError(
      () => build({ handler }),
      '`handler` must be the name of an export of `entry`: a JavaScript identifier (A-Z a-z 0-9 _ $, not starting ' +
        `with a digit; no file name, no dots), got: ${JSON.stringify(handler)}.`,
    );
  });

  test.each(['main', '_h', '$h1', 'handler2'])('accepts %j', (handler) => {
    expect(() => build({ handler })).not.toThrow();
  });
});

describe('timeout and margin', () => {
  test('timeout must be whole seconds', () => {
    expectError(() => build({ timeout: Duration.millis(1500) }), '`timeout` must be a whole number of seconds, got: 1500 ms.');
  });

  test('margin must be whole seconds', () => {
    expectError(() => build({ margin: Duration.millis(500) }), '`margin` must be a whole number of seconds, got: 500 ms.');
  });

  test('timeout must be known at synth time', () => {
    expectError(
      () => build({ timeout: s(Token.asNumber({ Ref: 'Timeout' })) }),
      '`timeout` must be known at synth time (the construct derives other settings from it), got: a token.',
    );
  });

  test('timeout must be at least 1 second', () => {
    expectError(() => build({ timeout: s(0), margin: s(0) }), '`timeout` must be at least 1 second, got: 0 s.');
  });

  test.each([
    [60, 60],
    [61, 60],
    [1, 1],
  ])('margin %i s is not shorter than timeout %i s', (margin, timeout) => {
    expectError(
      () => build({ margin: s(margin), timeout: s(timeout) }),
      `\`margin\` must be shorter than \`timeout\`, got: margin ${margin} s, timeout ${timeout} s.`,
    );
  });

  test('margin one second shorter than timeout is fine', () => {
    expect(() => build({ margin: s(59), timeout: s(60) })).not.toThrow();
  });

  test.each([
    [890, 11],
    [900, 1],
    [600, 301],
  ])('timeout %i s + margin %i s is over 15 minutes', (timeout, margin) => {
    expectError(
      () => build({ timeout: s(timeout), margin: s(margin) }),
      `\`timeout\` plus \`margin\` must be at most 15 minutes (900 s), the Lambda maximum, got: timeout ${timeout} s + margin ${margin} s = ${timeout + margin} s.`,
    );
  });

  test.each([
    [899, 1],
    [900, 0],
  ])('timeout %i s + margin %i s is exactly 15 minutes: fine', (timeout, margin) => {
    expect(() => build({ timeout: s(timeout), margin: s(margin), approvalTtl: Duration.days(1) })).not.toThrow();
  });
});

describe('queue settings', () => {
  test('maxReceiveCount only with a created queue', () => {
    expectError(
      () => build({ maxReceiveCount: 3 }, (stack) => ({ queue: new sqs.Queue(stack, 'Q', { visibilityTimeout: Duration.minutes(10) }) })),
      '`maxReceiveCount` applies only to the queue the construct creates; set the redrive policy of `queue` instead, got: maxReceiveCount 3 with an existing `queue`.',
    );
  });

  test.each([0, 1001, 2.5])('maxReceiveCount %p is out of range', (maxReceiveCount) => {
    expectError(
      () => build({ maxReceiveCount }),
      `\`maxReceiveCount\` must be a whole number from 1 to 1000, got: ${maxReceiveCount}.`,
    );
  });

  test.each([1, 1000])('maxReceiveCount %p is fine', (maxReceiveCount) => {
    expect(() => build({ maxReceiveCount })).not.toThrow();
  });

  test('fifo true with a standard queue', () => {
    expectError(
      () => build({ fifo: true }, (stack) => ({ queue: sqs.Queue.fromQueueArn(stack, 'Q', 'arn:aws:sqs:us-east-1:123456789012:calls') })),
      '`fifo` must match the given `queue`, got: fifo true, but the queue is a standard queue.',
    );
  });

  test('fifo false with a FIFO queue', () => {
    expectError(
      () => build({ fifo: false }, (stack) => ({ queue: sqs.Queue.fromQueueArn(stack, 'Q', 'arn:aws:sqs:us-east-1:123456789012:calls.fifo') })),
      '`fifo` must match the given `queue`, got: fifo false, but the queue is a FIFO queue.',
    );
  });

  test('maxBatchingWindow at most 5 minutes', () => {
    expectError(
      () => build({ maxBatchingWindow: s(301), batchSize: 100 }),
      '`maxBatchingWindow` must be at most 5 minutes (300 s), got: 301 s.',
    );
    expect(() => build({ maxBatchingWindow: s(300) })).not.toThrow();
  });

  test('maxBatchingWindow must be whole seconds', () => {
    expectError(
      () => build({ maxBatchingWindow: Duration.millis(2500) }),
      '`maxBatchingWindow` must be a whole number of seconds, got: 2500 ms.',
    );
  });

  test('FIFO with a batching window', () => {
    expectError(
      () => build({ fifo: true, maxBatchingWindow: s(5) }),
      '`maxBatchingWindow` must not be set for a FIFO queue (its event source has no batching window), got: 5 s.',
    );
  });

  test('a given FIFO queue with a batching window', () => {
    expectError(
      () => build({ maxBatchingWindow: s(5) }, (stack) => ({ queue: sqs.Queue.fromQueueArn(stack, 'Q', 'arn:aws:sqs:us-east-1:123456789012:calls.fifo') })),
      '`maxBatchingWindow` must not be set for a FIFO queue (its event source has no batching window), got: 5 s.',
    );
  });

  test.each([0, 10001, 2.5])('batchSize %p is out of range', (batchSize) => {
    expectError(
      () => build({ batchSize, maxBatchingWindow: s(1) }),
      `\`batchSize\` must be a whole number from 1 to 10000, got: ${batchSize}.`,
    );
  });

  const window = (seconds: number | undefined) => (seconds === undefined ? undefined : s(seconds));

  test.each([
    [11, 'no maxBatchingWindow', undefined],
    [11, 'maxBatchingWindow 0 s', 0],
    [100, 'maxBatchingWindow 0 s', 0],
    [10000, 'maxBatchingWindow 0 s', 0],
  ])('batchSize %p with %s is refused (a window under 1 s is no window)', (batchSize, shown, seconds) => {
    expectError(
      () => build({ batchSize, maxBatchingWindow: window(seconds) }),
      `\`batchSize\` must be at most 10 without a \`maxBatchingWindow\` of at least 1 s, got: batchSize ${batchSize}, ${shown}.`,
    );
  });

  test.each([
    [10, 'no maxBatchingWindow', undefined],
    [10, 'maxBatchingWindow 0 s', 0],
    [11, 'maxBatchingWindow 1 s', 1],
    [10000, 'maxBatchingWindow 1 s', 1],
    [10000, 'maxBatchingWindow 300 s', 300],
  ])('batchSize %p with %s is fine', (batchSize, _shown, seconds) => {
    expect(() => build({ batchSize, maxBatchingWindow: window(seconds) })).not.toThrow();
  });

  test('batchSize over 10 on a FIFO queue (which cannot have a window)', () => {
    expectError(
      () => build({ batchSize: 11, fifo: true }),
      '`batchSize` must be at most 10 without a `maxBatchingWindow` of at least 1 s, got: batchSize 11, no maxBatchingWindow.',
    );
  });

  test.each([1, 1001])('maxConcurrency %p is out of range', (maxConcurrency) => {
    expectError(() => build({ maxConcurrency }), `\`maxConcurrency\` must be a whole number from 2 to 1000, got: ${maxConcurrency}.`);
  });

  test.each([2, 1000])('maxConcurrency %p is fine', (maxConcurrency) => {
    expect(() => build({ maxConcurrency })).not.toThrow();
  });

  test('a queue in this app whose visibility timeout is shorter than the function timeout', () => {
    expectError(
      () => build({}, (stack) => ({ queue: new sqs.Queue(stack, 'Q', { visibilityTimeout: s(60) }) })),
      '`queue` must have a visibility timeout of at least the function timeout (`timeout` + `margin`), got: visibility timeout 60 s, function timeout 61 s.',
    );
  });

  test('a queue in this app with the SQS default visibility timeout (30 s)', () => {
    expectError(
      () => build({}, (stack) => ({ queue: new sqs.Queue(stack, 'Q') })),
      '`queue` must have a visibility timeout of at least the function timeout (`timeout` + `margin`), got: visibility timeout 30 s, function timeout 61 s.',
    );
  });
});

describe('approvals', () => {
  test('approvalTtl shorter than the function timeout', () => {
    expectError(
      () => build({ approvalTtl: s(60) }),
      '`approvalTtl` must be at least the function timeout (`timeout` + `margin`), so that no record expires while its call runs, got: approvalTtl 60 s, function timeout 61 s.',
    );
    expect(() => build({ approvalTtl: s(61) })).not.toThrow();
  });

  test('approvalTtl must be whole seconds', () => {
    expectError(() => build({ approvalTtl: Duration.millis(90500) }), '`approvalTtl` must be a whole number of seconds, got: 90500 ms.');
  });

  test('a table in this app with another partition key', () => {
    expectError(
      () => build({}, (stack) => ({
        approvalsTable: withApprovalIndexes(
          new dynamodb.Table(stack, 'T', { partitionKey: { name: 'id', type: dynamodb.AttributeType.STRING }, stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES }),
        ),
      })),
      '`approvalsTable` must have a String partition key "pk" and no sort key, got: partition key id (S).',
    );
  });

  test('a table in this app with a numeric pk and a sort key', () => {
    expectError(
      () => build({}, (stack) => ({
        approvalsTable: withApprovalIndexes(
          new dynamodb.Table(stack, 'T', {
            partitionKey: { name: 'pk', type: dynamodb.AttributeType.NUMBER },
            sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
            stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
          }),
        ),
      })),
      '`approvalsTable` must have a String partition key "pk" and no sort key, got: partition key pk (N), sort key sk (S).',
    );
  });
});

describe('function settings', () => {
  test.each([127, 10241, 512.5])('memorySize %p', (memorySize) => {
    expectError(() => build({ memorySize }), `\`memorySize\` must be a whole number from 128 to 10240, got: ${memorySize}.`);
  });

  test.each([-1, 3])('retryAttempts %p', (retryAttempts) => {
    expectError(() => build({ retryAttempts }), `\`retryAttempts\` must be a whole number from 0 to 2, got: ${retryAttempts}.`);
  });

  test.each([
    [s(59), '59 s'],
    [s(6 * 3600 + 1), '21601 s'],
    [Duration.millis(60500), '60500 ms'],
  ])('maxEventAge %s', (maxEventAge, shown) => {
    expectError(() => build({ maxEventAge }), `\`maxEventAge\` must be whole seconds from 1 minute to 6 hours, got: ${shown}.`);
  });

  test.each([s(60), Duration.hours(6)])('maxEventAge %s is fine', (maxEventAge) => {
    expect(() => build({ maxEventAge })).not.toThrow();
  });

  test.each(Object.values(ENV))('environment may not set %s', (name) => {
    expectError(
      () => build({ environment: { [name]: 'x' } }),
      `\`environment\` must not set ${name}: the construct sets it from its props, got: ${name}.`,
    );
  });
});

describe('event sources', () => {
  test('an empty pattern', () => {
    expectError(
      () => build({ eventSources: [{ eventPattern: { source: ['a'] } }, { eventPattern: {} }] }),
      '`eventSources[1].eventPattern` must match on at least one field, got: {}.',
    );
  });

  test.each([-1, 186, 1.5])('retryAttempts %p', (retryAttempts) => {
    expectError(
      () => build({ eventSources: [{ eventPattern: { source: ['a'] }, retryAttempts }] }),
      `\`eventSources[0].retryAttempts\` must be a whole number from 0 to 185, got: ${retryAttempts}.`,
    );
  });

  test.each([
    [s(59), '59 s'],
    [s(24 * 3600 + 1), '86401 s'],
  ])('maxEventAge %s', (maxEventAge, shown) => {
    expectError(
      () => build({ eventSources: [{ eventPattern: { source: ['a'] }, maxEventAge }] }),
      `\`eventSources[0].maxEventAge\` must be whole seconds from 1 minute to 24 hours, got: ${shown}.`,
    );
  });

  test('boundaries are fine', () => {
    expect(() => build({
      eventSources: [
        { eventPattern: { source: ['a'] }, retryAttempts: 0, maxEventAge: s(60) },
        { eventPattern: { source: ['b'] }, retryAttempts: 185, maxEventAge: Duration.hours(24) },
      ],
    })).not.toThrow();
  });

  test('addEventSource names the source by its id', () => {
    const tools = build({});
    expectError(
      () => tools.addEventSource('Orders', { eventPattern: {} }),
      '`addEventSource("Orders").eventPattern` must match on at least one field, got: {}.',
    );
  });

  describe('on the reply bus', () => {
    const loopMessage = (label: string, sources: unknown[]) =>
      `\`${label}.eventPattern.source\` must not name a source beginning with "cdk-tool-handler" on the reply bus ` +
      "(`replyBus`): those are the sources of the functions' own replies, which would come back in as tool calls, " +
      `forever; got: ${JSON.stringify(sources)}.`;
    const REPLY_EVENT_SOURCE = replyEventSource('someone');

    test("the reply sources are the runtime's: cdk-tool-handler.<owner>", () => {
      expect(REPLY_SOURCE_ROOT).toBe('cdk-tool-handler');
      expect(REPLY_EVENT_SOURCE).toBe('cdk-tool-handler.someone');
    });

    test.each([
      ['the bare root, which earlier versions published', ['cdk-tool-handler']],
      ['a prefix that takes in every owner', [{ prefix: 'cdk-tool-handler.' }]],
      ['a prefix shorter than the root', ['agent', { prefix: 'cdk' }]],
    ])('a pattern naming %s on the reply bus is refused', (_, sources) => {
      expectError(
        () => build({}, (stack) => {
          const replyBus = new events.EventBus(stack, 'Replies');
          return { replyBus, eventSources: [{ eventBus: replyBus, eventPattern: { source: sources as string[] } }] };
        }),
        loopMessage('eventSources[0]', sources),
      );
    });

    test('a pattern naming the reply source on the same bus is refused', () => {
      expectError(
        () => build({}, (stack) => {
          const replyBus = new events.EventBus(stack, 'Replies');
          return {
            replyBus,
            eventSources: [
              { eventPattern: { source: ['agent'] } },
              { eventBus: replyBus, eventPattern: { source: ['agent', REPLY_EVENT_SOURCE] } },
            ],
          };
        }),
        loopMessage('eventSources[1]', ['agent', REPLY_EVENT_SOURCE]),
      );
    });

    test('a pattern naming the reply source on the default bus, when the reply bus is the default bus, is refused', () => {
      expectError(
        () => build({}, (stack) => ({
          replyBus: events.EventBus.fromEventBusName(stack, 'Default', 'default'),
          eventSources: [{ eventPattern: { source: [REPLY_EVENT_SOURCE] } }],
        })),
        loopMessage('eventSources[0]', [REPLY_EVENT_SOURCE]),
      );
    });

    test('addEventSource names the source by its id', () => {
      let replyBus: events.IEventBus | undefined;
      const tools = build({}, (stack) => ({ replyBus: (replyBus = new events.EventBus(stack, 'Replies')) }));
      expectError(
        () => tools.addEventSource('Replies', { eventBus: replyBus, eventPattern: { source: [REPLY_EVENT_SOURCE] } }),
        loopMessage('addEventSource("Replies")', [REPLY_EVENT_SOURCE]),
      );
    });

    test.each([
      ['another bus', (stack: Stack) => new events.EventBus(stack, 'Calls')],
      ['the default bus', () => undefined],
    ])('a pattern naming the reply source on %s is fine: replies never reach it', (_, ruleBus) => {
      expect(() => build({}, (stack) => ({
        replyBus: new events.EventBus(stack, 'Replies'),
        eventSources: [{ eventBus: ruleBus(stack), eventPattern: { source: [REPLY_EVENT_SOURCE] } }],
      }))).not.toThrow();
    });
  });

  test('addEventSource with a taken id fails like any construct id', () => {
    const tools = build({});
    tools.addEventSource('Orders', { eventPattern: { source: ['a'] } });
    expect(() => tools.addEventSource('Orders', { eventPattern: { source: ['b'] } })).toThrow(/Orders/);
  });
});

test('the validation runs before anything is created', () => {
  const app = new App();
  const stack = new Stack(app, 'Test');
  expect(() => new ToolHandler(stack, 'Tools', props({ tools: [] }))).toThrow();
  expect(stack.node.tryFindChild('Tools')?.node.children ?? []).toHaveLength(0);
});

test('an error names the construct path of a nested ToolHandler', () => {
  const stack = new Stack(unbundledApp(), 'Outer', { env: ACCOUNT });
  const group = new Construct(stack, 'Agents');
  expectError(() => new ToolHandler(group, 'Billing', props({ tools: [] })), '`tools` must name at least one tool, got: [].', 'Outer/Agents/Billing');
});

test('checking a given table uses no deprecated API (JSII_DEPRECATED=fail turns a use into an error)', () => {
  const previous = process.env.JSII_DEPRECATED;
  process.env.JSII_DEPRECATED = 'fail';
  try {
    expect(() =>
      build({}, (stack) => {
        const table = new dynamodb.Table(stack, 'T', {
          partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
          timeToLiveAttribute: 'deleteAt',
          stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
        });
        return { approvalsTable: withApprovalIndexes(table) };
      }),
    ).not.toThrow();
  } finally {
    if (previous === undefined) delete process.env.JSII_DEPRECATED;
    else process.env.JSII_DEPRECATED = previous;
  }
});

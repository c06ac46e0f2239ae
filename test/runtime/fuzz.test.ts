/**
 * Property-based fuzzing (fast-check) of `parseEnvelope` and of the handler's event forms: SQS
 * batches, EventBridge Pipes arrays, EventBridge events and direct invokes. Whatever arrives, only
 * the runtime's own errors come out (never an "Unexpected failure" wrapping a TypeError), a batch with
 * usable ids is always answered, prototypes stay clean and replies are JSON-safe.
 */
import * as fc from 'fast-check';
import {
  MemoryApprovalStore,
  parseEnvelope,
  tool,
  toolHandler,
  ToolExecutor,
  ToolHandlerError,
  ToolUsageError,
} from '../../lambda';
import { callSchema, isPlainCall } from '../../lambda/envelope';
import { captureLogs, lambdaContext, STANDARD_QUEUE_ARN, FIFO_QUEUE_ARN } from '../support/events';

const SECTION_4_ERRORS = [
  'ToolUsageError',
  'ToolNotFound',
  'ApprovalNotFound',
  'AdapterError',
  'ApprovalDenied',
  'ToolFailed',
  'ToolTimeout',
  'CallInProgress',
];
const RUNS = { numRuns: 250 };

let logs: ReturnType<typeof captureLogs>;
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => {
  logs.restore();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

// ---- arbitraries ----

const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'polluted', 'approved', 'decision');
const anything = fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true, key: fc.oneof(fc.string(), hostileKey) });
const json = fc.jsonValue({ maxDepth: 4 });
const toolName = fc.oneof(fc.constantFrom('echo', 'gated', 'nope', ''), fc.string({ maxLength: 130 }), anything);
const id = fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 260 }), anything);
const args = fc.oneof(
  fc.dictionary(fc.oneof(fc.string(), hostileKey), json, { maxKeys: 4 }),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}}') as unknown),
  anything,
);
/** Objects shaped like envelopes, with wrong types and stray keys mixed in. */
const envelopeLike = fc.oneof(
  fc.record({ tool: toolName, args, run_id: id, call_id: id }, { requiredKeys: ['tool'] }),
  fc.record({ approval_id: id }),
  fc.record({ tool: toolName, approval_id: id, extra: anything }, { requiredKeys: [] }),
  fc.dictionary(fc.oneof(fc.string(), hostileKey), anything, { maxKeys: 4 }),
  anything,
);
/** As an SQS body would hold it: JSON text of the above, broken JSON, or JSON with `__proto__`. */
const bodyText = fc.oneof(
  envelopeLike.map((value) => safeStringify(value)),
  fc.string(),
  json.map((value) => `{"tool":"echo","args":{"__proto__":${JSON.stringify(value)}}}`),
);
const sqsRecordLike = fc.record(
  {
    eventSource: fc.constant('aws:sqs'),
    messageId: fc.oneof(fc.uuid(), fc.uuid(), fc.constant(''), anything),
    eventSourceARN: fc.oneof(fc.constantFrom(STANDARD_QUEUE_ARN, FIFO_QUEUE_ARN), anything),
    body: fc.oneof(bodyText, bodyText, anything),
    attributes: fc.oneof(fc.record({ MessageGroupId: fc.oneof(fc.constantFrom('A', 'B'), anything) }), anything),
  },
  { requiredKeys: ['eventSource'] },
);

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return '{}';
  }
}

// ---- the handler under test ----

const echo = tool({ name: 'echo', run: (input) => input });
const gated = tool({ name: 'gated', requiresApproval: true, run: () => 'ran' });
const store = new MemoryApprovalStore();
const handler = toolHandler(new ToolExecutor({ tools: [echo, gated], approvals: store }), { replies: false });

/** A thrown error must be one of the runtime's, and never a wrapped unexpected failure (an escaped TypeError). */
function expectSection4(error: unknown): void {
  expect(error).toBeInstanceOf(ToolHandlerError);
  expect(SECTION_4_ERRORS).toContain((error as Error).name);
  expect((error as Error).message).not.toMatch(/^Unexpected failure/);
}

function expectJsonSafe(value: unknown): void {
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}

function expectNoUnexpectedFailures(): void {
  const unexpected = logs.lines().filter((line) => /Unexpected failure/.test(String((line.error as { message?: string } | undefined)?.message)));
  expect(unexpected).toEqual([]);
}

const usableId = (value: unknown) => typeof value === 'string' && value.length > 0;

// ---- properties ----

describe('parseEnvelope', () => {
  test('returns an envelope or throws a ToolUsageError, for objects and for JSON text', () => {
    fc.assert(
      fc.property(fc.oneof(envelopeLike, bodyText, anything), (payload) => {
        try {
          const envelope = parseEnvelope(payload, { messageId: 'm', source: 'fuzz' });
          expect(typeof envelope.isResume).toBe('boolean');
          // Args parsed from JSON text are plain, JSON-safe objects (a parsed payload's are passed as given).
          if (!envelope.isResume && typeof payload === 'string') {
            expect(Object.getPrototypeOf(envelope.args)).toBe(Object.prototype);
            expectJsonSafe(envelope.args);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(ToolUsageError);
        }
      }),
      RUNS,
    );
  });

  test('the hand check of a plain call accepts only what the call schema accepts, and reads the same values', () => {
    const callLike = fc.record(
      { tool: fc.oneof(toolName, anything), args: fc.oneof(args, anything), run_id: fc.oneof(id, anything), call_id: id, trace: anything, extra: anything },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(callLike, envelopeLike), (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
        const object = value as Record<string, never>;
        if (!isPlainCall(object)) return;
        const parsed = callSchema.safeParse(object);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual({ ...object });
      }),
      RUNS,
    );
  });

  test('`__proto__` in args stays plain data', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = `{"tool":"echo","args":{"__proto__":${JSON.stringify(value)}}}`;
        const envelope = parseEnvelope(text);
        expect(Object.getPrototypeOf(envelope.args)).toBe(Object.prototype);
        expect(Object.prototype.hasOwnProperty.call(envelope.args, '__proto__')).toBe(true);
        expect(JSON.stringify(envelope.args)).toBe(`{"__proto__":${JSON.stringify(value)}}`);
      }),
      RUNS,
    );
  });
});

describe('toolHandler', () => {
  test('SQS batches: answered with the ids of failed records, or refused as a whole (ToolUsageError) when an id is unusable', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sqsRecordLike, { maxLength: 5 }), async (records) => {
        const outcome = await handler({ Records: records }, lambdaContext(10_000)).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        if (records.every((record) => usableId(record.messageId))) {
          expect(outcome).not.toHaveProperty('error');
          const { batchItemFailures } = (outcome as { value: { batchItemFailures: Array<{ itemIdentifier: string }> } }).value;
          const ids = new Set(records.map((record) => record.messageId));
          for (const failure of batchItemFailures) expect(ids.has(failure.itemIdentifier)).toBe(true);
          expectJsonSafe(batchItemFailures);
        } else {
          expect((outcome as { error: Error }).error).toBeInstanceOf(ToolUsageError);
          expect((outcome as { error: Error }).error.message).toMatch(/messageId/);
        }
        expectNoUnexpectedFailures();
      }),
      RUNS,
    );
  });

  test('EventBridge Pipes arrays: SQS records are a batch, anything else a ToolUsageError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(sqsRecordLike, sqsRecordLike, anything), { maxLength: 4 }), async (event) => {
        const outcome = await handler(event, lambdaContext(10_000)).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) expect(outcome.error).toBeInstanceOf(ToolUsageError);
        else expect(outcome.value).toHaveProperty('batchItemFailures');
        expectNoUnexpectedFailures();
      }),
      RUNS,
    );
  });

  test('EventBridge events and direct invokes: a JSON-safe reply, or a runtime error', async () => {
    const eventBridge = fc.record({
      version: fc.constant('0'),
      id: fc.oneof(fc.uuid(), anything),
      'detail-type': fc.oneof(fc.constant('Tool Call Requested'), anything),
      source: fc.oneof(fc.constant('agents.planner'), anything),
      detail: envelopeLike,
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(eventBridge, envelopeLike), async (event) => {
        const outcome = await handler(event, lambdaContext(10_000)).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) expectSection4(outcome.error);
        else {
          expectJsonSafe(outcome.value);
          // An array is a Pipes batch (tested above); anything else answers a reply.
          expect(outcome.value).toHaveProperty(Array.isArray(event) ? 'batchItemFailures' : 'status');
        }
        expectNoUnexpectedFailures();
      }),
      RUNS,
    );
  });
});

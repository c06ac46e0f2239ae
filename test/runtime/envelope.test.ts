/**
 * The envelope: every rule, with a good case and each bad case, for string payloads (SQS
 * bodies) and already-parsed objects (EventBridge `detail`, direct invokes).
 */
import { MAX_ENVELOPE_BYTES, parseEnvelope, ToolUsageError } from '../../lambda';
import type { Envelope } from '../../lambda';
import { thrown } from '../support/thrown';

type Form = 'string' | 'object';
const FORMS: readonly Form[] = ['string', 'object'];

/** The payload as an SQS body (JSON text) or as an already-parsed object. */
function payloadAs(form: Form, value: unknown): unknown {
  return form === 'string' ? JSON.stringify(value) : value;
}


/** Asserts that parsing throws a ToolUsageError whose message matches every pattern. */
function expectUsageError(payload: unknown, patterns: readonly RegExp[]): ToolUsageError {
  const error = thrown(() => parseEnvelope(payload, { messageId: 'm-1', source: 'test' }));
  expect(error).toBeInstanceOf(ToolUsageError);
  const usage = error as ToolUsageError;
  expect(usage.name).toBe('ToolUsageError');
  expect(usage.retryable).toBe(false);
  for (const pattern of patterns) expect(usage.message).toMatch(pattern);
  return usage;
}

/** `n` levels of nesting: a value of depth 1 is `{}`; every object or array adds a level. */
function nested(depth: number, arrays = false): unknown {
  let value: unknown = arrays ? [] : {};
  for (let level = 2; level <= depth; level++) {
    value = arrays && level % 2 === 0 ? [value] : { x: value };
  }
  return value;
}

/** An envelope whose JSON text is exactly `bytes` bytes of UTF-8, padded with `unit`. */
function callOfBytes(bytes: number, unit = 'a'): { tool: string; args: { p: string } } {
  const overhead = Buffer.byteLength(JSON.stringify({ tool: 'a', args: { p: '' } }), 'utf8');
  const unitBytes = Buffer.byteLength(unit, 'utf8');
  const room = bytes - overhead;
  const units = Math.floor(room / unitBytes);
  const padding = unit.repeat(units) + 'a'.repeat(room - units * unitBytes);
  const value = { tool: 'a', args: { p: padding } };
  expect(Buffer.byteLength(JSON.stringify(value), 'utf8')).toBe(bytes);
  return value;
}

const A = (n: number) => 'a'.repeat(n);
const EMOJI = '\u{1F600}'; // 😀, two UTF-16 units, one code point, four UTF-8 bytes

const ID_KEYS = ['run_id', 'call_id', 'approval_id'] as const;
type IdKey = (typeof ID_KEYS)[number];

/** The smallest envelope that carries `key` with `value`. */
function withId(key: IdKey, value: unknown): Record<string, unknown> {
  return key === 'approval_id' ? { approval_id: value } : { tool: 'a', [key]: value };
}

function idOf(envelope: Envelope, key: IdKey): string | undefined {
  return key === 'run_id' ? envelope.runId : key === 'call_id' ? envelope.callId : envelope.approvalId;
}

interface BadCase {
  readonly name: string;
  readonly value: unknown;
  readonly patterns: readonly RegExp[];
}

const BAD_CASES: readonly BadCase[] = [
  // Exactly one of `tool` and `approval_id`.
  { name: 'both tool and approval_id', value: { tool: 'a', approval_id: 'apr_1' }, patterns: [/`tool`/, /`approval_id`/] },
  { name: 'neither tool nor approval_id (empty object)', value: {}, patterns: [/`tool`/, /`approval_id`/] },
  { name: 'neither tool nor approval_id (args only)', value: { args: {}, run_id: 'r1' }, patterns: [/`tool`/, /`approval_id`/] },
  // A decision never travels in an envelope.
  {
    name: 'approved: true in a call',
    value: { tool: 'a', args: {}, approved: true },
    patterns: [/`approved`/, /decision never travels in an envelope/],
  },
  {
    name: 'approved: true in a resume',
    value: { approval_id: 'apr_1', approved: true },
    patterns: [/`approved`/, /decision never travels in an envelope/],
  },
  {
    name: 'decision in a resume',
    value: { approval_id: 'apr_1', decision: 'approved' },
    patterns: [/`decision`/, /decision never travels in an envelope/],
  },
  {
    name: 'decision in a call',
    value: { tool: 'a', decision: 'approved' },
    patterns: [/`decision`/, /decision never travels in an envelope/],
  },
  // Keys of the wrong kind.
  { name: 'run_id in a resume', value: { approval_id: 'apr_1', run_id: 'r1' }, patterns: [/`run_id`/, /resume/] },
  { name: 'call_id in a resume', value: { approval_id: 'apr_1', call_id: 'c1' }, patterns: [/`call_id`/, /resume/] },
  { name: 'args in a resume', value: { approval_id: 'apr_1', args: {} }, patterns: [/`args`/, /resume/] },
  // Unknown keys.
  { name: 'unknown key in a call', value: { tool: 'a', args: {}, fooBar: 1 }, patterns: [/`fooBar`/] },
  { name: 'unknown key in a resume', value: { approval_id: 'apr_1', fooBar: 1 }, patterns: [/`fooBar`/] },
  { name: 'camelCase runId in a call', value: { tool: 'a', runId: 'r1' }, patterns: [/`runId`/] },
  // Wrong types.
  { name: 'tool a number', value: { tool: 42 }, patterns: [/`tool`/, /string/] },
  { name: 'tool null', value: { tool: null }, patterns: [/`tool`/] },
  { name: 'tool an object', value: { tool: { name: 'a' } }, patterns: [/`tool`/] },
  { name: 'args an array', value: { tool: 'a', args: [1, 2] }, patterns: [/`args`/, /JSON object/] },
  { name: 'args null', value: { tool: 'a', args: null }, patterns: [/`args`/, /JSON object/] },
  { name: 'args a string', value: { tool: 'a', args: '{"a":1}' }, patterns: [/`args`/, /JSON object/] },
  { name: 'args a number', value: { tool: 'a', args: 3 }, patterns: [/`args`/, /JSON object/] },
  { name: 'run_id a number', value: { tool: 'a', run_id: 7 }, patterns: [/`run_id`/, /string/] },
  { name: 'call_id a boolean', value: { tool: 'a', call_id: true }, patterns: [/`call_id`/, /string/] },
  { name: 'approval_id a number', value: { approval_id: 7 }, patterns: [/`approval_id`/, /string/] },
  { name: 'approval_id null', value: { approval_id: null }, patterns: [/`approval_id`/] },
  // Empty values.
  { name: 'empty tool', value: { tool: '' }, patterns: [/`tool`/, /empty/] },
  { name: 'empty run_id', value: { tool: 'a', run_id: '' }, patterns: [/`run_id`/, /empty/] },
  { name: 'empty call_id', value: { tool: 'a', call_id: '' }, patterns: [/`call_id`/, /empty/] },
  { name: 'empty approval_id', value: { approval_id: '' }, patterns: [/`approval_id`/, /empty/] },
  // Tool names.
  { name: 'tool of 129 characters', value: { tool: A(129) }, patterns: [/`tool`/, /128/] },
  { name: 'tool with a space', value: { tool: 'add numbers' }, patterns: [/`tool`/, /A-Z a-z 0-9 _ \. -/] },
  { name: 'tool with a slash', value: { tool: 'math/add' }, patterns: [/`tool`/, /A-Z a-z 0-9 _ \. -/] },
  { name: 'tool with a non-ASCII letter', value: { tool: 'caf\u00e9' }, patterns: [/`tool`/] },
  { name: 'tool with a trailing newline', value: { tool: 'add\n' }, patterns: [/`tool`/] },
  { name: 'tool with a colon', value: { tool: 'a:b' }, patterns: [/`tool`/] },
  // Ids: length, whitespace and control characters.
  ...ID_KEYS.flatMap((key): BadCase[] => [
    { name: `${key} of 257 code points`, value: withId(key, A(257)), patterns: [new RegExp(`\`${key}\``), /256/] },
    { name: `${key} of 257 emoji`, value: withId(key, EMOJI.repeat(257)), patterns: [new RegExp(`\`${key}\``), /256/] },
    { name: `${key} with a space`, value: withId(key, 'a b'), patterns: [new RegExp(`\`${key}\``), /whitespace/] },
    { name: `${key} with a tab`, value: withId(key, 'a\tb'), patterns: [new RegExp(`\`${key}\``), /whitespace/] },
    { name: `${key} with a newline`, value: withId(key, 'ab\n'), patterns: [new RegExp(`\`${key}\``), /whitespace/] },
    { name: `${key} with a no-break space`, value: withId(key, 'a\u00a0b'), patterns: [new RegExp(`\`${key}\``)] },
    { name: `${key} with \\u0001`, value: withId(key, 'a\u0001b'), patterns: [new RegExp(`\`${key}\``), /control/] },
    { name: `${key} with DEL (\\u007f)`, value: withId(key, 'a\u007fb'), patterns: [new RegExp(`\`${key}\``), /control/] },
    { name: `${key} with a NUL`, value: withId(key, 'a\u0000b'), patterns: [new RegExp(`\`${key}\``), /control/] },
  ]),
];

describe('parseEnvelope rejects a bad envelope with a ToolUsageError naming what was wrong', () => {
  const cases = BAD_CASES.flatMap((c) => FORMS.map((form) => ({ ...c, form })));
  test.each(cases)('$name ($form payload)', ({ value, form, patterns }) => {
    expectUsageError(payloadAs(form, value), patterns);
  });

  // `__proto__` must be an own key to travel: JSON.parse makes it one; an object literal would not.
  test.each(FORMS)('a top-level __proto__ key is rejected naming it (%s payload)', (form) => {
    const text = '{"tool":"a","args":{},"__proto__":{"polluted":true}}';
    expectUsageError(form === 'string' ? text : JSON.parse(text), [/`__proto__`/]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('a top-level __proto__ key is rejected in an object that also has undefined-valued keys', () => {
    const payload = JSON.parse('{"tool":"a","__proto__":{"polluted":true}}') as Record<string, unknown>;
    payload.run_id = undefined;
    expectUsageError(payload, [/`__proto__`/]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseEnvelope accepts a good envelope', () => {
  interface GoodCase {
    readonly name: string;
    readonly value: unknown;
    readonly expected: Partial<Record<keyof Envelope, unknown>>;
  }
  const GOOD_CASES: readonly GoodCase[] = [
    {
      name: 'a full call',
      value: { tool: 'add', args: { a: 1, b: 2 }, run_id: 'r1', call_id: 'c1' },
      expected: { isResume: false, tool: 'add', args: { a: 1, b: 2 }, runId: 'r1', callId: 'c1', approvalId: undefined },
    },
    {
      name: 'a call with only `tool` (args default to {})',
      value: { tool: 'add' },
      expected: { isResume: false, tool: 'add', args: {} },
    },
    {
      name: 'a resume',
      value: { approval_id: 'apr_123' },
      expected: { isResume: true, approvalId: 'apr_123', tool: undefined, args: undefined, runId: undefined, callId: undefined },
    },
    { name: 'tool of 1 character', value: { tool: 'a' }, expected: { tool: 'a' } },
    { name: 'tool of 128 characters', value: { tool: A(128) }, expected: { tool: A(128) } },
    { name: 'tool using every allowed kind of character', value: { tool: 'Az09_.-' }, expected: { tool: 'Az09_.-' } },
    { name: 'args with nested JSON', value: { tool: 'a', args: { list: [1, { b: null }], s: 'x' } }, expected: { args: { list: [1, { b: null }], s: 'x' } } },
    { name: 'empty args object', value: { tool: 'a', args: {} }, expected: { args: {} } },
    ...ID_KEYS.flatMap((key): GoodCase[] => {
      const field = key === 'run_id' ? 'runId' : key === 'call_id' ? 'callId' : 'approvalId';
      return [
        { name: `${key} of 1 character`, value: withId(key, 'x'), expected: { [field]: 'x' } },
        { name: `${key} of 256 code points`, value: withId(key, A(256)), expected: { [field]: A(256) } },
        {
          name: `${key} of 256 emoji (512 UTF-16 units, lengths count code points)`,
          value: withId(key, EMOJI.repeat(256)),
          expected: { [field]: EMOJI.repeat(256) },
        },
        { name: `${key} with non-ASCII letters and punctuation`, value: withId(key, 'r\u00e9sum\u00e9-#1:/x'), expected: { [field]: 'r\u00e9sum\u00e9-#1:/x' } },
      ];
    }),
  ];
  const cases = GOOD_CASES.flatMap((c) => FORMS.map((form) => ({ ...c, form })));
  test.each(cases)('$name ($form payload)', ({ value, form, expected }) => {
    const envelope = parseEnvelope(payloadAs(form, value), { messageId: 'm-1', source: 'test' });
    // Key by key, so that an expected `undefined` also accepts an absent key.
    for (const [key, value] of Object.entries(expected)) {
      expect([key, envelope[key as keyof Envelope]]).toEqual([key, value]);
    }
  });

  test('a call always carries a run_id and a call_id, a resume carries neither', () => {
    const call = parseEnvelope({ tool: 'a' });
    expect(call.isResume).toBe(false);
    expect(typeof call.runId).toBe('string');
    expect(typeof call.callId).toBe('string');
    const resume = parseEnvelope('{"approval_id":"apr_1"}');
    expect(resume).toEqual({ isResume: true, approvalId: 'apr_1' });
  });
});

describe('parsed payloads: a key whose value is undefined counts as absent', () => {
  test('{tool, approval_id: undefined} is a call', () => {
    const envelope = parseEnvelope({ tool: 'a', approval_id: undefined });
    expect(envelope.isResume).toBe(false);
    expect(envelope.tool).toBe('a');
  });

  test('{approval_id, tool: undefined} is a resume', () => {
    expect(parseEnvelope({ approval_id: 'apr_1', tool: undefined })).toEqual({ isResume: true, approvalId: 'apr_1' });
  });

  test('keys of the other kind set to undefined do not count in a resume', () => {
    const envelope = parseEnvelope({ approval_id: 'apr_1', args: undefined, run_id: undefined, call_id: undefined, approved: undefined });
    expect(envelope).toEqual({ isResume: true, approvalId: 'apr_1' });
  });

  test('args: undefined defaults to {}', () => {
    expect(parseEnvelope({ tool: 'a', args: undefined }).args).toEqual({});
  });

  test('run_id: undefined and call_id: undefined get derived ids', () => {
    const given = parseEnvelope({ tool: 'a', run_id: undefined, call_id: undefined }, { messageId: 'm', source: 's' });
    const absent = parseEnvelope({ tool: 'a' }, { messageId: 'm', source: 's' });
    expect(given.runId).toBe(absent.runId);
    expect(given.callId).toBe(absent.callId);
  });

  test('{tool: undefined, approval_id: undefined} has neither', () => {
    expectUsageError({ tool: undefined, approval_id: undefined }, [/`tool`/, /`approval_id`/]);
  });

  test('an unknown key set to undefined counts as absent', () => {
    expect(parseEnvelope({ tool: 'a', approved: undefined }).tool).toBe('a');
  });

  test('the caller’s object is not modified', () => {
    const payload = { tool: 'a', approval_id: undefined };
    parseEnvelope(payload);
    expect(Object.keys(payload)).toEqual(['tool', 'approval_id']);
  });
});

describe('payload forms: not JSON, or JSON that is not an object', () => {
  test.each([
    ['plain text', 'add 1 2'],
    ['an empty string', ''],
    ['truncated JSON', '{"tool":"a"'],
    ['single quotes', "{'tool':'a'}"],
    ['a trailing comma', '{"tool":"a",}'],
  ])('a string payload that is not JSON: %s', (_name, text) => {
    expectUsageError(text, [/not JSON/]);
  });

  test.each([
    ['an array', '[{"tool":"a"}]', /an array/],
    ['a number', '42', /a number/],
    ['null', 'null', /null/],
    ['a JSON string literal', '"{\\"tool\\":\\"a\\"}"', /a string/],
    ['a boolean', 'true', /a boolean/],
  ])('a string payload of JSON that is not an object: %s', (_name, text, type) => {
    expectUsageError(text, [/JSON object/, type]);
  });

  test.each([
    ['an array', [{ tool: 'a' }], /an array/],
    ['a number', 42, /a number/],
    ['null', null, /null/],
    ['undefined', undefined, /undefined/],
    ['a boolean', false, /a boolean/],
  ])('an already-parsed payload that is not an object: %s', (_name, value, type) => {
    expectUsageError(value, [/JSON object/, type]);
  });

  test('an already-parsed payload that JSON cannot hold (a BigInt in args) is rejected', () => {
    expectUsageError({ tool: 'a', args: { n: BigInt(1) } }, [/JSON/]);
  });

  test('a string payload and the same object parse to the same envelope', () => {
    const value = { tool: 'add', args: { a: 1, b: [2, { c: 'd' }] }, run_id: 'r1', call_id: 'c1' };
    expect(parseEnvelope(JSON.stringify(value))).toEqual(parseEnvelope(value));
  });
});

describe('size: at most MAX_ENVELOPE_BYTES bytes of UTF-8 JSON', () => {
  test('MAX_ENVELOPE_BYTES is 1 MiB', () => {
    expect(MAX_ENVELOPE_BYTES).toBe(1 << 20);
  });

  test('a string body of exactly 1 MiB parses', () => {
    const value = callOfBytes(MAX_ENVELOPE_BYTES);
    const envelope = parseEnvelope(JSON.stringify(value));
    expect(envelope.tool).toBe('a');
    expect((envelope.args as { p: string }).p).toBe(value.args.p);
  });

  test('a string body of 1 MiB + 1 byte is rejected naming the byte limit', () => {
    expectUsageError(JSON.stringify(callOfBytes(MAX_ENVELOPE_BYTES + 1)), [new RegExp(`${MAX_ENVELOPE_BYTES} bytes`)]);
  });

  test('a string body is measured before it is parsed (an oversized non-JSON body is a size error)', () => {
    const error = expectUsageError('x'.repeat(MAX_ENVELOPE_BYTES + 1), [new RegExp(`${MAX_ENVELOPE_BYTES} bytes`)]);
    expect(error.message).not.toMatch(/not JSON/);
  });

  test('an object payload of exactly 1 MiB of JSON parses', () => {
    const value = callOfBytes(MAX_ENVELOPE_BYTES);
    expect(parseEnvelope(value).args).toBe(value.args);
  });

  test('an object payload of 1 MiB + 1 byte of JSON is rejected naming the byte limit', () => {
    expectUsageError(callOfBytes(MAX_ENVELOPE_BYTES + 1), [new RegExp(`${MAX_ENVELOPE_BYTES} bytes`)]);
  });

  describe.each(FORMS)('multi-byte characters count as bytes, not characters (%s payload)', (form) => {
    test.each([
      ['\u00e9 (2 bytes)', '\u00e9'],
      ['\u20ac (3 bytes)', '\u20ac'],
      ['an emoji (4 bytes, 2 UTF-16 units)', EMOJI],
    ])('exactly 1 MiB of UTF-8 padded with %s parses', (_name, unit) => {
      const value = callOfBytes(MAX_ENVELOPE_BYTES, unit);
      expect(parseEnvelope(payloadAs(form, value)).tool).toBe('a');
    });

    test.each([
      ['\u00e9 (2 bytes)', '\u00e9'],
      ['\u20ac (3 bytes)', '\u20ac'],
      ['an emoji (4 bytes, 2 UTF-16 units)', EMOJI],
    ])('1 MiB + 1 byte of UTF-8 padded with %s is rejected though it has far fewer characters', (_name, unit) => {
      const value = callOfBytes(MAX_ENVELOPE_BYTES + 1, unit);
      const text = JSON.stringify(value);
      expect(text.length).toBeLessThan(MAX_ENVELOPE_BYTES);
      expectUsageError(payloadAs(form, value), [new RegExp(`${MAX_ENVELOPE_BYTES} bytes`)]);
    });
  });
});

describe('nesting: at most 64 levels (the envelope is level 1, args level 2)', () => {
  test('the helper builds what it says', () => {
    expect(nested(1)).toEqual({});
    expect(nested(3)).toEqual({ x: { x: {} } });
    expect(nested(3, true)).toEqual({ x: [[]] });
  });

  describe.each(FORMS)('%s payload', (form) => {
    test('64 levels (args nested 63 deep) parse', () => {
      const envelope = parseEnvelope(payloadAs(form, { tool: 'a', args: nested(63) }));
      expect(envelope.args).toEqual(nested(63));
    });

    test('65 levels (args nested 64 deep) are rejected naming the limit', () => {
      expectUsageError(payloadAs(form, { tool: 'a', args: nested(64) }), [/64/, /nest|deep/]);
    });

    test('arrays count as levels: 64 levels of mixed objects and arrays parse', () => {
      expect(parseEnvelope(payloadAs(form, { tool: 'a', args: nested(63, true) })).tool).toBe('a');
    });

    test('arrays count as levels: 65 levels of mixed objects and arrays are rejected', () => {
      expectUsageError(payloadAs(form, { tool: 'a', args: nested(64, true) }), [/64/]);
    });

    test('a wide but shallow args object parses', () => {
      const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, { v: [i] }]));
      expect(parseEnvelope(payloadAs(form, { tool: 'a', args: wide })).args).toEqual(wide);
    });
  });

  test('a hostile string nested 100 000 deep is a ToolUsageError, not a stack overflow', () => {
    const depth = 100_000;
    expectUsageError(`{"tool":"a","args":${'['.repeat(depth)}${']'.repeat(depth)}}`, [/64/]);
  });

  test('a cyclic object payload is a ToolUsageError, not a stack overflow', () => {
    const args: Record<string, unknown> = {};
    args.self = args;
    expectUsageError({ tool: 'a', args }, []);
  });
});

describe('prototype pollution: __proto__ stays plain data', () => {
  const TEXT = '{"tool":"a","args":{"__proto__":{"polluted":true}}}';

  test.each(FORMS)('args.__proto__ is an own data key and pollutes nothing (%s payload)', (form) => {
    const envelope = parseEnvelope(form === 'string' ? TEXT : JSON.parse(TEXT));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
    const args = envelope.args!;
    expect(Object.prototype.hasOwnProperty.call(args, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(args, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect((args as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('args.__proto__ survives the undefined-stripping copy of an object payload', () => {
    const payload = JSON.parse(TEXT) as Record<string, unknown>;
    payload.run_id = undefined;
    const args = parseEnvelope(payload).args!;
    expect(Object.prototype.hasOwnProperty.call(args, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('constructor.prototype in args pollutes nothing', () => {
    parseEnvelope('{"tool":"a","args":{"constructor":{"prototype":{"polluted":true}}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('ids of a call', () => {
  const call = { tool: 'add', args: { a: 1 } };

  test('without run_id and call_id, ids derive from (source, messageId): the same pair gives the same ids', () => {
    const first = parseEnvelope(JSON.stringify(call), { source: 'sqs:arn:q', messageId: 'msg-1' });
    const again = parseEnvelope(call, { source: 'sqs:arn:q', messageId: 'msg-1' });
    expect(again.runId).toBe(first.runId);
    expect(again.callId).toBe(first.callId);
  });

  test('run_id differs from call_id', () => {
    const envelope = parseEnvelope(call, { source: 's', messageId: 'm' });
    expect(envelope.runId).not.toBe(envelope.callId);
  });

  test('derived ids are themselves valid ids (re-sending them explicitly is accepted)', () => {
    const envelope = parseEnvelope(call, { source: 's', messageId: 'm' });
    const again = parseEnvelope({ ...call, run_id: envelope.runId, call_id: envelope.callId });
    expect(again.runId).toBe(envelope.runId);
    expect(again.callId).toBe(envelope.callId);
  });

  test('a different source with the same messageId gives different ids', () => {
    const a = parseEnvelope(call, { source: 'sqs:arn:a', messageId: 'msg-1' });
    const b = parseEnvelope(call, { source: 'events:b', messageId: 'msg-1' });
    expect(b.runId).not.toBe(a.runId);
    expect(b.callId).not.toBe(a.callId);
  });

  test('sources and messageIds do not collide by concatenation', () => {
    const a = parseEnvelope(call, { source: 'a', messageId: 'b:c' });
    const b = parseEnvelope(call, { source: 'a:b', messageId: 'c' });
    expect(b.runId).not.toBe(a.runId);
    expect(b.callId).not.toBe(a.callId);
  });

  test('a different messageId from the same source gives different ids', () => {
    const a = parseEnvelope(call, { source: 's', messageId: 'msg-1' });
    const b = parseEnvelope(call, { source: 's', messageId: 'msg-2' });
    expect(b.runId).not.toBe(a.runId);
    expect(b.callId).not.toBe(a.callId);
  });

  test('ids depend on the delivery only, not on the tool or args', () => {
    const a = parseEnvelope(call, { source: 's', messageId: 'm' });
    const b = parseEnvelope({ tool: 'other', args: { z: 2 } }, { source: 's', messageId: 'm' });
    expect(b.runId).toBe(a.runId);
    expect(b.callId).toBe(a.callId);
  });

  test('the source defaults to direct', () => {
    const implicit = parseEnvelope(call, { messageId: 'm' });
    const explicit = parseEnvelope(call, { messageId: 'm', source: 'direct' });
    expect(implicit.runId).toBe(explicit.runId);
    expect(implicit.callId).toBe(explicit.callId);
  });

  test('given ids are kept and the messageId is ignored', () => {
    const envelope = parseEnvelope({ ...call, run_id: 'r1', call_id: 'c1' }, { source: 's', messageId: 'm' });
    expect(envelope.runId).toBe('r1');
    expect(envelope.callId).toBe('c1');
  });

  test('a given run_id is kept and only call_id is derived', () => {
    const derived = parseEnvelope(call, { source: 's', messageId: 'm' });
    const envelope = parseEnvelope({ ...call, run_id: 'r1' }, { source: 's', messageId: 'm' });
    expect(envelope.runId).toBe('r1');
    expect(envelope.callId).toBe(derived.callId);
  });

  test('a given call_id is kept and only run_id is derived', () => {
    const derived = parseEnvelope(call, { source: 's', messageId: 'm' });
    const envelope = parseEnvelope({ ...call, call_id: 'c1' }, { source: 's', messageId: 'm' });
    expect(envelope.callId).toBe('c1');
    expect(envelope.runId).toBe(derived.runId);
  });

  test('without a messageId the ids are random: two parses differ', () => {
    const a = parseEnvelope(call, { source: 's' });
    const b = parseEnvelope(call, { source: 's' });
    expect(b.runId).not.toBe(a.runId);
    expect(b.callId).not.toBe(a.callId);
    expect(a.runId).not.toBe(a.callId);
    for (const id of [a.runId, a.callId, b.runId, b.callId]) expect(id).toMatch(/^\S{1,256}$/);
  });

  test('without options at all the ids are random', () => {
    const a = parseEnvelope(call);
    const b = parseEnvelope(call);
    expect(b.runId).not.toBe(a.runId);
    expect(b.callId).not.toBe(a.callId);
  });

  test('without a messageId a given run_id is kept and call_id is random', () => {
    const a = parseEnvelope({ ...call, run_id: 'r1' });
    const b = parseEnvelope({ ...call, run_id: 'r1' });
    expect(a.runId).toBe('r1');
    expect(b.runId).toBe('r1');
    expect(b.callId).not.toBe(a.callId);
  });

  test.each(ID_KEYS)('a given %s is carried into the envelope as is', (key) => {
    const envelope = parseEnvelope(withId(key, 'ok-id'), { source: 's', messageId: 'm' });
    expect(idOf(envelope, key)).toBe('ok-id');
  });
});

/**
 * Input hygiene: a JSON parse error names the position only, never an excerpt of the input (an
 * SQS body may start with a secret, and the error reaches the logs).
 */
import * as fc from 'fast-check';
import { tool, toolHandler, ToolExecutor } from '../../lambda';
import { parseEnvelope } from '../../lambda/envelope';
import { ToolUsageError } from '../../lambda/errors';
import { jsonErrorPosition, longestJsonPrefix } from '../../lambda/json';
import { captureLogs, lambdaContext, sqsEvent, sqsRecord } from '../support/events';
import { thrown } from '../support/thrown';

/** Bodies that are not JSON, with the 0-based offset (UTF-16 units, as V8 counts) of the fault. */
const BAD_BODIES: ReadonlyArray<readonly [string, number]> = [
  ['sk_live_abcdef123', 0],
  ['{"tool": sk_live_x}', 9],
  ['{"a":1,}', 7],
  ['{"a": "unterminated', 19],
  ['[1,2', 4],
  ['', 0],
  ['{"tool":"a"} sk_live_tail', 13],
  ['\ufeff{"tool":"a"}', 0],
  ['{"sk_live_key" sk_live_value}', 15],
];

/** Every run of `length` characters of `text`. */
function runsOf(text: string, length: number): string[] {
  const runs: string[] = [];
  for (let i = 0; i + length <= text.length; i++) runs.push(text.slice(i, i + length));
  return runs;
}

function parseError(body: string): ToolUsageError {
  const error = thrown(() => parseEnvelope(body, { messageId: 'm-1', source: 'test' }));
  expect(error).toBeInstanceOf(ToolUsageError);
  return error as ToolUsageError;
}

describe('jsonErrorPosition', () => {
  test.each(BAD_BODIES)('%j fails at %i', (body, position) => {
    expect(jsonErrorPosition(body)).toBe(position);
  });

  test('is undefined for JSON', () => {
    expect(jsonErrorPosition('{"tool":"a"}')).toBeUndefined();
    expect(jsonErrorPosition(' [1, "x", null] ')).toBeUndefined();
  });

  test("the search agrees with V8 wherever V8 names a position", () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.constantFrom('x', ',', '}', ']', '"', ':', '\u0001', '0', ' '), (json, at, inserted) => {
        const i = at % (json.length + 1);
        const text = json.slice(0, i) + inserted + json.slice(i);
        let message: string;
        try {
          JSON.parse(text);
          return;
        } catch (error) {
          message = (error as Error).message;
        }
        const position = /position (\d+)/.exec(message);
        if (position) expect(longestJsonPrefix(text)).toBe(Number(position[1]));
      }),
      { numRuns: 500 },
    );
  });
});

describe('an envelope that is not JSON', () => {
  test.each(BAD_BODIES)('%j: the message names position %i and quotes nothing of the body', (body, position) => {
    const { message } = parseError(body);
    expect(message).toBe(`Invalid envelope: not JSON (the payload is not valid JSON at position ${position}).`);
    expect(message).not.toContain('sk_live');
    for (const run of runsOf(body, 4)) expect(message).not.toContain(run);
  });

  test('the error keeps no cause that would carry V8\'s excerpt', () => {
    const error = parseError('sk_live_abcdef123');
    expect(error.cause).toBeUndefined();
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('sk_live');
  });
});

describe("the handler's log line for an SQS record that is not JSON", () => {
  let logs: ReturnType<typeof captureLogs>;
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  test.each(BAD_BODIES.filter(([body]) => body.includes('sk_live')))('%j', async (body, position) => {
    const handler = toolHandler(new ToolExecutor({ tools: [tool({ name: 'a', run: () => 1 })], approvals: false, calls: false }), { replies: false });
    const result = await handler(sqsEvent(sqsRecord('secret-1', body)), lambdaContext(10_000));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'secret-1' }] });
    const lines = logs.lines();
    const line = lines.find((l) => (l.error as { type?: string } | undefined)?.type === 'ToolUsageError');
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).toContain(`position ${position}`);
    expect(JSON.stringify(lines)).not.toContain('sk_live');
  });
});

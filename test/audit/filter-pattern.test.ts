/**
 * The filter pattern evaluator of the tests (test/support/filter-pattern.ts) against the examples of
 * AWS's "Filter pattern syntax for metric filters, subscription filters, filter log events": each
 * documented match matches, each documented non-match does not. The archive's and the CLI's tests
 * rely on it to say what CloudWatch Logs would select.
 */
import { FilterPatternError, matchesFilterPattern } from '../support/filter-pattern';

/** The documentation's first JSON example event. */
const EVENT = JSON.stringify({
  eventType: 'UpdateTrail',
  sourceIPAddress: '111.111.111.111',
  arrayKey: ['value', 'another value'],
  objectList: [
    { name: 'a', id: 1 },
    { name: 'b', id: 2 },
  ],
  SomeObject: null,
  ThisFlag: true,
});

/** The documentation's compound-conditions example event. */
const USERS = JSON.stringify({
  user: { id: 1, email: 'John.Stiles@example.com' },
  users: [
    { id: 2, email: 'John.Doe@example.com' },
    { id: 3, email: 'Jane.Doe@example.com' },
  ],
  actions: ['GET', 'PUT', 'DELETE'],
  coordinates: [
    [0, 1, 2],
    [4, 5, 6],
    [7, 8, 9],
  ],
});

test.each([
  '{ $.eventType = "UpdateTrail" }',
  '{ $.sourceIPAddress != 123.123.* }',
  '{ $.arrayKey[0] = "value" }',
  '{ $.objectList[1].id = 2 }',
  '{ $.SomeObject IS NULL }',
  '{ $.SomeOtherObject NOT EXISTS }',
  '{ $.ThisFlag IS TRUE }',
  '{$.eventType=UpdateTrail}',
  '{ $.eventType = "Update*" }',
  '{ $.eventType = "*Trail" }',
])('the documented match %s matches', (pattern) => {
  expect(matchesFilterPattern(pattern, EVENT)).toBe(true);
});

test.each([
  ['{ ($.user.id = 1) && ($.users[0].email = "John.Doe@example.com") }', true],
  ['{ ($.user.id = 2 && $.users[0].email = "nonmatch") || $.actions[2] = "GET" }', false],
  ['{ $.user.email = "John.Stiles@example.com" || $.coordinates[0][1] = nonmatch && $.actions[2] = nomatch }', true],
  ['{ ($.user.email = "John.Stiles@example.com" || $.coordinates[0][1] = nonmatch) && $.actions[2] = nomatch }', false],
])('the documented compound condition %s: %s', (pattern, matches) => {
  expect(matchesFilterPattern(pattern, USERS)).toBe(matches);
});

describe('equality of strings', () => {
  const line = JSON.stringify({ record: 'audit', event: 'call', approval_id: null, n: 1 });

  test('`=` and `!=` on a string', () => {
    expect(matchesFilterPattern('{ $.record = "audit" }', line)).toBe(true);
    expect(matchesFilterPattern('{ $.record = "audits" }', line)).toBe(false);
    expect(matchesFilterPattern('{ $.record != "audit" }', line)).toBe(false);
    expect(matchesFilterPattern('{ $.record != "other" }', line)).toBe(true);
  });

  test('a missing key, a null and a number match no string comparison, `=` or `!=`', () => {
    for (const selector of ['$.missing', '$.approval_id', '$.n', '$.record.inner']) {
      expect(matchesFilterPattern(`{ ${selector} = "audit" }`, line)).toBe(false);
      expect(matchesFilterPattern(`{ ${selector} != "audit" }`, line)).toBe(false);
    }
  });

  test('a selector that reaches an object or an array matches no comparison (the documentation: users is an array)', () => {
    const users = JSON.stringify({ users: [1, 2, 3], o: { a: 1 } });
    expect(matchesFilterPattern('{ $.users = 1 }', users)).toBe(false);
    expect(matchesFilterPattern('{ $.users != 1 }', users)).toBe(false);
    expect(matchesFilterPattern('{ $.o != "x" }', users)).toBe(false);
  });

  test('a dotted selector walks into objects: `$.enduser.id` is not the key "enduser.id"', () => {
    const flat = JSON.stringify({ 'enduser.id': 'alice' });
    const nested = JSON.stringify({ enduser: { id: 'alice' } });
    expect(matchesFilterPattern('{ $.enduser.id = "alice" }', flat)).toBe(false);
    expect(matchesFilterPattern('{ $.enduser.id = "alice" }', nested)).toBe(true);
  });

  test('a `*` inside a value is itself (the documentation: Ev*ent matches only Ev*ent)', () => {
    expect(matchesFilterPattern('{ $.e = "Ev*ent" }', JSON.stringify({ e: 'Event' }))).toBe(false);
    expect(matchesFilterPattern('{ $.e = "Ev*ent" }', JSON.stringify({ e: 'Ev*ent' }))).toBe(true);
  });
});

describe('numbers', () => {
  const line = JSON.stringify({ latency: 500, errorCode: 400, numbers: [9, 0.001], processes: [0, 0, 0, 0, { averageRuntime: 55.5 }], text: '500' });

  test.each([
    ['{ $.latency >= 500 }', true],
    ['{ $.latency > 500 }', false],
    ['{ $.numbers[0] < 10e3 }', true],
    ['{ $.numbers[1] < 10e-3 }', true],
    ['{ $.processes[4].averageRuntime <= 55.5 }', true],
    ['{ $.errorCode = 400 }', true],
    ['{ $.errorCode != 500 }', true],
    ['{ $.latency > +1000 }', false],
    ['{ $.latency > -1 }', true],
    ['{ $.text = 500 }', false],
    ['{ $.missing != 500 }', false],
  ])('%s: %s', (pattern, matches) => {
    expect(matchesFilterPattern(pattern, line)).toBe(matches);
  });
});

test('`&&` binds tighter than `||`, and parentheses group', () => {
  const line = JSON.stringify({ a: 'x', b: 'y', c: 'z' });
  expect(matchesFilterPattern('{ $.a = "no" && $.b = "y" || $.c = "z" }', line)).toBe(true);
  expect(matchesFilterPattern('{ $.a = "no" && ($.b = "y" || $.c = "z") }', line)).toBe(false);
  expect(matchesFilterPattern('{ $.a = "x" && $.b = "y" && $.c = "z" }', line)).toBe(true);
  expect(matchesFilterPattern('{ $.a = "no" || $.b = "no" }', line)).toBe(false);
});

test('a line that is not a JSON object matches no JSON pattern; the empty pattern matches every line', () => {
  for (const line of ['plain text', '[1]', '"audit"', '', '{"record":"audit"']) expect(matchesFilterPattern('{ $.record = "audit" }', line)).toBe(false);
  expect(matchesFilterPattern('', 'plain text')).toBe(true);
});

test.each(['ERROR', '[ip, user]', '{ $.a = }', '{ a = "x" }', '{ $.a = "x" ', '{ ($.a = "x" }', '{ $.a < "x" }'])('%j is refused, not guessed', (pattern) => {
  expect(() => matchesFilterPattern(pattern, '{"a":"x"}')).toThrow(FilterPatternError);
});

/**
 * The one EventBridge pattern matcher (local/event-pattern.ts), used by `cdk-tool-handler local` (the
 * pipe's filter, the resume rule, the notification rules) and by the construct's tests: what it
 * implements, as AWS documents it, and that it refuses, naming it, whatever it does not implement.
 */
import { compileEventPattern, EventPatternError, matchesPattern } from '../../local/event-pattern';
import { Resolver } from '../../local/intrinsics';
import { topicRules } from '../../local/notifications';
import { pipeSpec, resumeRuleSpec } from '../../local/pipe';

const EVENT = {
  source: 'cdk-tool-handler',
  'detail-type': 'Tool Call Succeeded',
  resources: ['arn:a', 'arn:b'],
  detail: {
    status: 'ok',
    count: 5,
    done: true,
    note: null,
    state: { code: 1 },
    tags: [],
    items: [
      { id: 'a', kind: 'x' },
      { id: 'b', kind: 'y' },
    ],
  },
};

describe('what it implements', () => {
  test.each([
    ['an exact string', { source: ['cdk-tool-handler'] }, true],
    ['one of several values', { source: ['other', 'cdk-tool-handler'] }, true],
    ['a value that differs', { source: ['other'] }, false],
    ['case counts', { source: ['CDK-tool-handler'] }, false],
    ['a number', { detail: { count: [5] } }, true],
    ['a number is not its string', { detail: { count: ['5'] } }, false],
    ['true', { detail: { done: [true] } }, true],
    ['null', { detail: { note: [null] } }, true],
    ['every field must match', { source: ['cdk-tool-handler'], detail: { status: ['error'] } }, false],
    ['an array value: any of its elements', { resources: ['arn:b'] }, true],
    ['an array value: none of its elements', { resources: ['arn:c'] }, false],
    ['a missing field', { detail: { absent: ['x'] } }, false],
    ['a nested pattern on a value that is not an object', { source: { x: ['y'] } }, false],
    ['prefix', { 'detail-type': [{ prefix: 'Tool Call' }] }, true],
    ['prefix, not matching', { 'detail-type': [{ prefix: 'Tool Approval' }] }, false],
    ['prefix of a number: strings only', { detail: { count: [{ prefix: '5' }] } }, false],
    ['prefix of an array element', { resources: [{ prefix: 'arn:b' }] }, true],
    ['exists: a present field', { detail: { status: [{ exists: true }] } }, true],
    ['exists: a null field is present', { detail: { note: [{ exists: true }] } }, true],
    ['exists: false on a present field', { detail: { status: [{ exists: false }] } }, false],
    ['exists: false on an absent field', { detail: { absent: [{ exists: false }] } }, true],
    ['exists: false under an absent object', { missing: { absent: [{ exists: false }] } }, true],
    ['exists works on leaves: an object is not one (true)', { detail: { state: [{ exists: true }] } }, false],
    ['exists works on leaves: an object is not one (false)', { detail: { state: [{ exists: false }] } }, true],
    ['exists: an empty array holds no value', { detail: { tags: [{ exists: true }] } }, false],
    ['anything-but a string', { detail: { status: [{ 'anything-but': 'error' }] } }, true],
    ['anything-but the value itself', { detail: { status: [{ 'anything-but': 'ok' }] } }, false],
    ['anything-but a list', { detail: { status: [{ 'anything-but': ['error', 'ok'] }] } }, false],
    ['anything-but numbers', { detail: { count: [{ 'anything-but': [1, 2] }] } }, true],
    ['anything-but never matches an absent field', { detail: { absent: [{ 'anything-but': 'x' }] } }, false],
    ['anything-but on an array: an element outside the list', { resources: [{ 'anything-but': ['arn:a'] }] }, true],
    ['anything-but on an array: every element in the list', { resources: [{ 'anything-but': ['arn:a', 'arn:b'] }] }, false],
    ['anything-but a prefix: a value outside it', { source: [{ 'anything-but': { prefix: 'orders' } }] }, true],
    ['anything-but a prefix: a value that begins with it', { source: [{ 'anything-but': { prefix: 'cdk-tool' } }] }, false],
    ['anything-but a prefix never matches an absent field', { detail: { absent: [{ 'anything-but': { prefix: 'x' } }] } }, false],
    ['anything-but a prefix: strings only', { detail: { count: [{ 'anything-but': { prefix: 'x' } }] } }, false],
    ['a literal or an operator', { source: ['other', { prefix: 'cdk-' }] }, true],
    ['an array of objects: one element matches the nested pattern', { detail: { items: { id: ['b'], kind: ['y'] } } }, true],
    ['an array of objects: fields of different elements never combine', { detail: { items: { id: ['a'], kind: ['y'] } } }, false],
    ['the empty pattern matches everything', {}, true],
  ])('%s', (_, pattern, expected) => {
    expect(matchesPattern(pattern, EVENT)).toBe(expected);
  });
});

describe('what it refuses, naming it (never a quiet "no match")', () => {
  test.each([
    ['numeric', { detail: { count: [{ numeric: ['>', 0] }] } }, /operator "numeric" \(at detail\.count\) is not implemented/],
    ['suffix', { source: [{ suffix: 'handler' }] }, /operator "suffix" \(at source\)/],
    ['wildcard', { source: [{ wildcard: 'cdk-*' }] }, /operator "wildcard" \(at source\)/],
    ['equals-ignore-case', { source: [{ 'equals-ignore-case': 'CDK-TOOL-HANDLER' }] }, /operator "equals-ignore-case" \(at source\)/],
    ['cidr', { detail: { ip: [{ cidr: '10.0.0.0/24' }] } }, /operator "cidr" \(at detail\.ip\)/],
    ['$or', { $or: [{ source: ['a'] }, { source: ['b'] }] }, /operator "\$or" \(at \$or\)/],
    ['a nested $or', { detail: { $or: [{ a: ['1'] }, { b: ['2'] }] } }, /operator "\$or" \(at detail\.\$or\)/],
    ['prefix with equals-ignore-case', { source: [{ prefix: { 'equals-ignore-case': 'CDK' } }] }, /operator "prefix with equals-ignore-case"/],
    ['anything-but with suffix', { source: [{ 'anything-but': { suffix: 'cdk' } }] }, /operator "anything-but with suffix"/],
    ['an unknown operator', { source: [{ contains: 'tool' }] }, /operator "contains" \(at source\)/],
  ])('%s', (_, pattern, message) => {
    expect(() => matchesPattern(pattern, EVENT)).toThrow(EventPatternError);
    expect(() => matchesPattern(pattern, EVENT)).toThrow(message);
  });

  test('the whole pattern is checked, not only what an event reaches', () => {
    // The first alternative matches and the first field fails: the operators after them are still refused.
    expect(() => matchesPattern({ source: ['cdk-tool-handler', { suffix: 'x' }] }, EVENT)).toThrow(/"suffix"/);
    expect(() => matchesPattern({ source: ['other'], detail: { count: [{ numeric: ['>', 0] }] } }, EVENT)).toThrow(/"numeric"/);
    expect(() => compileEventPattern({ detail: { absent: { deeper: [{ wildcard: '*' }] } } })).toThrow(/"wildcard" \(at detail\.absent\.deeper\)/);
  });

  test.each([
    ['a pattern that is not an object', ['x'], /An event pattern is a JSON object/],
    ['a field that is neither a list nor an object', { source: 'cdk-tool-handler' }, /field source must be a list of values or an object/],
    ['an empty list', { source: [] }, /field source is an empty list/],
    ['an operator object of two keys', { source: [{ prefix: 'a', exists: true }] }, /an operator is an object of one key/],
    ['exists that is not a boolean', { source: [{ exists: 'yes' }] }, /"exists" \(at source\) takes true or false/],
    ['prefix that is not a string', { source: [{ prefix: 5 }] }, /"prefix" \(at source\) takes a string/],
    ['anything-but of strings and numbers', { source: [{ 'anything-but': ['a', 1] }] }, /"anything-but" \(at source\) takes/],
    ['anything-but of a prefix that is not a string', { source: [{ 'anything-but': { prefix: 5 } }] }, /"anything-but" \(at source\) takes \{ "prefix": a string \}/],
    ['a list inside a list', { source: [['a']] }, /not a value nor an operator/],
  ])('malformed: %s', (_, pattern, message) => {
    expect(() => compileEventPattern(pattern)).toThrow(message);
  });
});

describe('the local run refuses at its start what it could not evaluate', () => {
  const numeric = { detail: { count: [{ numeric: ['>', 0] }] } };

  test("the pipe's filter and the handler's resume rule", () => {
    const pipe = { SourceParameters: { FilterCriteria: { Filters: [{ Pattern: JSON.stringify(numeric) }] } }, TargetParameters: { InputTemplate: '{}' } };
    expect(() => pipeSpec(pipe)).toThrow(/operator "numeric" \(at detail\.count\)/);
    expect(() => resumeRuleSpec({ EventPattern: numeric }, { Arn: 'queue' })).toThrow(/operator "numeric"/);
  });

  test('a notification rule it cannot evaluate is set aside with the reason; the others are kept', () => {
    const template = {
      Resources: {
        Topic: { Type: 'AWS::SNS::Topic', Properties: {} },
        Plain: { Type: 'AWS::Events::Rule', Properties: { EventPattern: { source: ['cdk-tool-handler'] }, Targets: [{ Id: 't', Arn: { Ref: 'Topic' } }] } },
        Odd: { Type: 'AWS::Events::Rule', Properties: { EventPattern: { source: [{ suffix: 'handler' }] }, Targets: [{ Id: 't', Arn: { Ref: 'Topic' } }] } },
      },
    };
    const { rules, setAside } = topicRules(template, new Resolver(template));
    expect(rules.map((r) => r.rule)).toEqual(['Plain']);
    expect(setAside).toEqual([{ rule: 'Odd', reason: expect.stringMatching(/operator "suffix" \(at source\) is not implemented/) }]);
  });
});

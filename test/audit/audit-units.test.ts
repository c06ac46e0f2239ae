/**
 * The audit command's parts on their own: `--since`, the filter pattern it sends CloudWatch Logs
 * (evaluated as CloudWatch Logs would, test/support/filter-pattern.ts), the query's match, and what
 * counts as an audit record: a tool's own output, wrapped by Lambda's JSON log format, never does.
 */
import { parseSince } from '../../cli/audit-args';
import { auditFilterPattern, inTimeOrder, matchesAuditQuery } from '../../cli/audit-query';
import { auditRecordOf, formatAuditRecord, type AuditRecord } from '../../console/audit-record';
import { AUDIT_FILTER_PATTERN } from '../../lambda/audit';
import { matchesFilterPattern } from '../support/filter-pattern';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');

const record = (fields: Record<string, unknown>): AuditRecord =>
  ({
    record: 'audit',
    time: '2026-12-05T11:00:00.000Z',
    event: 'call',
    'gen_ai.tool.name': 'refund',
    'enduser.id': 'alice',
    'caller.verified': true,
    approval_id: 'apr_1',
    outcome: 'ok',
    ...fields,
  }) as AuditRecord;

describe('--since', () => {
  test.each([
    ['30s', NOW - 30_000],
    ['15m', NOW - 15 * 60_000],
    ['12h', NOW - 12 * 3600_000],
    ['7d', NOW - 7 * 86_400_000],
    ['2w', NOW - 14 * 86_400_000],
    ['2026-12-01', Date.parse('2026-12-01')],
    ['2026-12-01T09:00:00Z', Date.parse('2026-12-01T09:00:00Z')],
    ['2026-12-01T09:00:00.250+02:00', Date.parse('2026-12-01T07:00:00.250Z')],
  ])('%s', (value, expected) => {
    expect(parseSince(value, NOW)).toBe(expected);
  });

  test('the last day when not given', () => {
    expect(parseSince(undefined, NOW)).toBe(NOW - 86_400_000);
  });

  test.each(['yesterday', '15', 'm15', '1.5h', '-3d', '2026-02-30T25:00:00Z', '2026/12/01', ''])('%j is refused, naming the forms it takes', (value) => {
    expect(() => parseSince(value, NOW)).toThrow(/--since must be a duration back from now \(30s, 15m, 12h, 7d, 2w\) or an ISO 8601 time/);
  });
});

describe('the filter pattern sent to CloudWatch Logs', () => {
  test('is the audit mark alone, the archive\'s pattern, without --approval', () => {
    expect(auditFilterPattern({ since: 0, caller: 'alice', tool: 'refund' })).toBe(AUDIT_FILTER_PATTERN);
  });

  test('adds the approval id, and selects that approval\'s records only', () => {
    const pattern = auditFilterPattern({ since: 0, approval: 'apr_1' });
    expect(pattern).toBe('{ $.record = "audit" && $.approval_id = "apr_1" }');
    expect(matchesFilterPattern(pattern, JSON.stringify(record({})))).toBe(true);
    expect(matchesFilterPattern(pattern, JSON.stringify(record({ approval_id: 'apr_2' })))).toBe(false);
    expect(matchesFilterPattern(pattern, JSON.stringify(record({ approval_id: null })))).toBe(false);
    expect(matchesFilterPattern(pattern, JSON.stringify({ ...record({}), record: 'other' }))).toBe(false);
  });

  test.each(['apr_"} || { $.x NOT EXISTS', 'apr_*', 'apr_\\1', 'apr 1'])('an approval id the pattern would read otherwise (%j) is left to the client-side match', (approval) => {
    expect(auditFilterPattern({ since: 0, approval })).toBe(AUDIT_FILTER_PATTERN);
    expect(matchesAuditQuery(record({ approval_id: 'apr_1' }), { since: 0, approval })).toBe(false);
  });
});

describe('the query', () => {
  test('matches on time, caller, tool and approval, each exactly', () => {
    const r = record({});
    expect(matchesAuditQuery(r, { since: Date.parse(r.time as string) })).toBe(true);
    expect(matchesAuditQuery(r, { since: Date.parse(r.time as string) + 1 })).toBe(false);
    expect(matchesAuditQuery(r, { since: 0, caller: 'alice', tool: 'refund', approval: 'apr_1' })).toBe(true);
    expect(matchesAuditQuery(r, { since: 0, caller: 'alic' })).toBe(false);
    expect(matchesAuditQuery(r, { since: 0, tool: 'Refund' })).toBe(false);
    expect(matchesAuditQuery(record({ time: 'not a time' }), { since: 0 })).toBe(false);
  });

  test('newest last, in the order read when two are at the same time', () => {
    const a = record({ time: '2026-12-05T11:00:02.000Z', outcome: 'a' });
    const b = record({ time: '2026-12-05T11:00:01.000Z', outcome: 'b' });
    const c = record({ time: '2026-12-05T11:00:01.000Z', outcome: 'c' });
    expect(inTimeOrder([a, b, c]).map((r) => r.outcome)).toEqual(['b', 'c', 'a']);
  });
});

describe('what is an audit record', () => {
  const imitation = JSON.stringify(record({ outcome: 'ok', 'enduser.id': 'admin' }));

  test('a line written by the runtime, a JSON object whose top-level record is "audit"', () => {
    expect(auditRecordOf(imitation)).toEqual(JSON.parse(imitation));
    expect(matchesFilterPattern(AUDIT_FILTER_PATTERN, imitation)).toBe(true);
  });

  test('never what a tool prints with console.*: Lambda\'s JSON log format puts it under `message`', () => {
    // As Lambda's JSON log format writes `console.log(text)` and `console.log(object)` of a tool.
    const asText = JSON.stringify({ timestamp: '2026-12-05T11:00:00.000Z', level: 'INFO', requestId: 'r-1', message: imitation });
    const asObject = JSON.stringify({ timestamp: '2026-12-05T11:00:00.000Z', level: 'INFO', requestId: 'r-1', message: JSON.parse(imitation) });
    for (const line of [asText, asObject]) {
      expect(auditRecordOf(line)).toBeUndefined();
      expect(matchesFilterPattern(AUDIT_FILTER_PATTERN, line)).toBe(false);
    }
  });

  test.each(['', 'audit', '[{"record":"audit"}]', '{"record":"Audit"}', '{"record":["audit"]}', '{"record":"audit"', 'null'])('%j is not one', (line) => {
    expect(auditRecordOf(line)).toBeUndefined();
  });

  test('for people: the fields in order, a caller AWS did not attest marked, nothing unescaped', () => {
    expect(formatAuditRecord(record({ time: '2026-12-05T11:00:00.123Z' }))).toBe('2026-12-05 11:00:00Z  call  refund  ok  asked by alice  approval apr_1');
    expect(formatAuditRecord(record({ 'caller.verified': false, event: 'decision', outcome: 'approved', decided_by: 'arn:aws:iam::1:user/bob' }))).toBe(
      '2026-12-05 11:00:00Z  decision  refund  approved  asked by alice (unverified)  approval apr_1  decided by arn:aws:iam::1:user/bob',
    );
    expect(formatAuditRecord(record({ 'enduser.id': null, approval_id: null, 'gen_ai.tool.name': null, outcome: 'EnvelopeInvalid' }))).toBe(
      '2026-12-05 11:00:00Z  call  -  EnvelopeInvalid  no caller',
    );
    expect(formatAuditRecord(record({ outcome: 'ok\n2026-12-05 11:00:01Z  call  refund  ok', time: 42 }))).toBe(
      '42  call  refund  ok\\n2026-12-05 11:00:01Z  call  refund  ok  asked by alice  approval apr_1',
    );
  });
});

/** The small pure parts: the table, the details, the region of a URL, the pick of a stack output. */
import { toEndpoint } from '../../approvals-client/endpoint';
import { formatDetails, formatTable, requester, shortTime } from '../../cli/format';
import type { ApprovalRecord } from '../../approvals-client/record';
import { pickOutput } from '../../cli/stack-url';

const record = (over: Partial<ApprovalRecord> = {}): ApprovalRecord => ({
  approval_id: 'apr_1',
  tool: 'send_email',
  args: { to: 'bob@example.com' },
  run_id: 'run_1',
  call_id: 'call_1',
  status: 'pending',
  fingerprint: 'fp',
  created_at: '2026-12-02T15:00:00.123Z',
  expires_at: '2026-12-09T15:00:00.000Z',
  ...over,
});

describe('formatTable', () => {
  test('aligns columns and counts', () => {
    const asked = { requested_by: { id: 'ana', kind: 'user' as const, verified: true, claims: { email: 'ana@example.com' } } };
    expect(formatTable([record(), record({ approval_id: 'apr_22', status: 'approved', tool: 't', ...asked })])).toBe(
      [
        'ID      TOOL        STATUS    ASKED BY                     CREATED               EXPIRES',
        'apr_1   send_email  pending   -                            2026-12-02 15:00:00Z  2026-12-09 15:00:00Z',
        'apr_22  t           approved  ana (email=ana@example.com)  2026-12-02 15:00:00Z  2026-12-09 15:00:00Z',
        '2 approvals.',
        '',
      ].join('\n'),
    );
  });

  test('who asked: the id, unverified when nothing checked it, and the display claims', () => {
    expect(requester(record())).toBeUndefined();
    expect(requester(record({ requested_by: { id: 'AIDAEXAMPLE', kind: 'iam', verified: true } }))).toBe('AIDAEXAMPLE');
    expect(requester(record({ requested_by: { id: 'u-7', kind: 'user', verified: false, claims: { groups: ['a', 'b'], level: 3 } } }))).toBe(
      'u-7 (unverified) (groups=a,b, level=3)',
    );
    expect(formatDetails(record())).toContain('Asked by:    no caller (the call proved none)\n');
  });

  test('truncates long cells with … and keeps a cell on one line', () => {
    const table = formatTable([record({ tool: 'x'.repeat(100) }), record({ tool: 'two\nlines' })]);
    expect(table).toContain(`${'x'.repeat(31)}…`);
    expect(table).not.toContain('x'.repeat(33));
    expect(table).toContain('two\\nlines');
  });

  test('says so when empty', () => {
    expect(formatTable([])).toBe('No approvals.\n');
  });
});

test('formatDetails shows the decision when there is one', () => {
  const text = formatDetails(record({ status: 'denied', decided_by: 'arn:aws:iam::1:user/a', decided_at: '2026-12-02T16:00:00Z', reason: 'no' }));
  expect(text).toContain('Decided by:  arn:aws:iam::1:user/a\n');
  expect(text).toContain('Reason:      no\n');
  expect(text.endsWith('Args:\n  {\n    "to": "bob@example.com"\n  }\n')).toBe(true);
});

test('shortTime keeps what it cannot parse', () => {
  expect(shortTime('2026-12-02T15:00:00Z')).toBe('2026-12-02 15:00:00Z');
  expect(shortTime('soon')).toBe('soon');
});

describe('toEndpoint', () => {
  test('a function URL is signed for the region in its host', () => {
    const e = toEndpoint('https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-central-1.on.aws', 'us-east-1');
    expect(e.region).toBe('eu-central-1');
    expect(e.baseUrl.href).toBe('https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-central-1.on.aws/');
  });

  test('another URL is signed for the fallback region, and keeps its path as a base', () => {
    const e = toEndpoint('http://127.0.0.1:8080/prefix', 'ap-south-1');
    expect(e.region).toBe('ap-south-1');
    expect(new URL('approvals', e.baseUrl).href).toBe('http://127.0.0.1:8080/prefix/approvals');
  });
});

describe('pickOutput', () => {
  const outputs = [
    { key: 'Other', value: 'o' },
    { key: 'AppToolsApprovals1234ABCDApprovalsApiUrl', value: 'u1' },
  ];
  test('the one output ending in ApprovalsApiUrl', () => {
    expect(pickOutput('S', outputs, undefined).value).toBe('u1');
  });
  test('--output must name one of those outputs', () => {
    expect(() => pickOutput('S', outputs, 'Other')).toThrow('Stack S has no output Other ending in ApprovalsApiUrl; it has: AppToolsApprovals1234ABCDApprovalsApiUrl.');
  });
});

/**
 * The approval record's one definition (lambda/stores/approval-record.ts) against the names the IAM
 * conditions use (lambda/construct-contract.ts): every field is stored under the attribute of its own name, and
 * the API shows exactly the fields its record documents.
 */
import { toApiRecord } from '../../lambda/approvals/api-record';
import { APPROVAL_ATTRIBUTES, DECISION_ATTRIBUTES, TABLE } from '../../lambda/construct-contract';
import { approvalFields, newApprovalRecord } from '../../lambda/stores/approval-record';

test('every field of the record is the table attribute of the same name that construct-contract.ts spells', () => {
  const attributes = new Set<string>([...Object.values(APPROVAL_ATTRIBUTES), ...Object.values(DECISION_ATTRIBUTES), TABLE.expiresAttribute]);
  for (const [field] of approvalFields()) expect({ field, known: attributes.has(field) }).toEqual({ field, known: true });
});

test("the API's view: snake_case names, ISO 8601 times, who asked as id, kind and verified, no claim, owner or result", () => {
  const record = {
    ...newApprovalRecord(
      {
        approvalId: 'apr_1',
        tool: 'refund',
        args: { orderId: 'o1' },
        runId: 'r1',
        callId: 'c1',
        fingerprint: 'f',
        requestedBy: { id: 'ana', kind: 'user', source: 'agentcore', verified: true, issuer: 'https://idp', claims: { email: 'a@x' } },
      },
      'team',
      Date.UTC(2030, 0, 1),
      60_000,
    ),
    status: 'approved' as const,
    decidedBy: 'arn:aws:iam::1:user/boss',
    decidedAt: Date.UTC(2030, 0, 1, 0, 0, 30),
    claimedUntil: 1,
    result: { x: 1 },
    hasResult: true,
  };
  expect(toApiRecord(record)).toEqual({
    approval_id: 'apr_1',
    tool: 'refund',
    args: { orderId: 'o1' },
    run_id: 'r1',
    call_id: 'c1',
    requested_by: { id: 'ana', kind: 'user', verified: true, claims: { email: 'a@x' } },
    status: 'approved',
    fingerprint: expect.any(String),
    created_at: '2030-01-01T00:00:00.000Z',
    expires_at: '2030-01-01T00:01:00.000Z',
    decided_by: 'arn:aws:iam::1:user/boss',
    decided_at: '2030-01-01T00:00:30.000Z',
  });
});

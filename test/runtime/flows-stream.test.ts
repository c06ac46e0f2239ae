/**
 * A waiting flow's token never leaves the table by its stream: the resume path's pipe passes only
 * the write that added a decision to an approval item, and a flow item is neither (its key is one
 * of the owner's call keys, and it never holds `decision`), whether the token is being kept, taken,
 * or put back. The filter is the one the construct synthesizes (lib/approvals/auto-resume.ts),
 * evaluated by the local run's event-pattern matcher.
 */
import { decisionFilter } from '../../lib/approvals/auto-resume';
import { compileEventPattern } from '../../local/event-pattern';
import { matchesAny } from '../../local/pipe';

const TOKEN = 'secret-task-token';
const pk = { S: 'call#billing#flow#apr_1' };
const kept = { pk, kind: { S: 'flow' }, replyTo: { S: JSON.stringify({ kind: 'sfn', taskToken: TOKEN }) } };
const taken = { pk, kind: { S: 'flow' }, completionAt: { N: '1' }, completionBy: { S: 't' }, completion: { S: 'succeeded' } };

function record(eventName: string, oldImage: object | undefined, newImage: object | undefined) {
  return {
    eventName,
    dynamodb: { Keys: { pk }, ...(oldImage ? { OldImage: oldImage } : {}), ...(newImage ? { NewImage: newImage } : {}), StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}

test.each([
  ['kept (the item is created)', record('INSERT', undefined, kept)],
  ['kept again (a newer token)', record('MODIFY', kept, kept)],
  ['taken by the completion', record('MODIFY', kept, taken)],
  ['put back after an engine failure', record('MODIFY', taken, kept)],
  ['deleted by TTL', record('REMOVE', kept, undefined)],
  // Even a flow item that somehow held `decision` stays out: its key is no approval key.
  ['a flow item with a decision', record('MODIFY', kept, { ...kept, decision: { S: 'approved' } })],
])("the resume pipe's filter drops a flow item's stream record: %s", (_name, streamRecord) => {
  expect(JSON.stringify(streamRecord)).toContain(JSON.stringify(pk));
  expect(matchesAny([compileEventPattern(decisionFilter())], streamRecord)).toBe(false);
});

test('the same filter passes a decision on an approval item (the matcher is not simply refusing)', () => {
  const approval = { pk: { S: 'approval#billing#apr_1' }, approvalId: { S: 'apr_1' } };
  const streamRecord = { eventName: 'MODIFY', dynamodb: { Keys: { pk: approval.pk }, OldImage: approval, NewImage: { ...approval, decision: { S: 'approved' } } } };
  expect(matchesAny([compileEventPattern(decisionFilter())], streamRecord)).toBe(true);
});

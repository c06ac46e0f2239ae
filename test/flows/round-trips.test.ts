/**
 * What a waiting flow costs, counted (bench/flows.ts, the bench's flow_completion_round_trips): a
 * call with reply_to makes one completion request and one DynamoDB request more than without (the
 * completion's record); an approval request one more (keeping the reply_to); a resume no flow waits
 * for makes no request for flows at all, and one a flow waits for one record and one completion.
 */
import { measureFlowCompletionRoundTrips } from '../../bench/flows';

test('round trips of a call, an approval request and a resume, with and without a waiting flow', async () => {
  const figures = await measureFlowCompletionRoundTrips(2);
  expect(figures.callWithReplyToDynamo - figures.callDynamo).toBe(1);
  expect(figures.callCompletions).toBe(1);
  expect(figures.requestExtraDynamo).toBe(1);
  expect(figures.resumeExtraDynamo).toBe(1);
  expect(figures.resumeCompletions).toBe(1);
  // The claim and the completion of the approval, as before flows.
  expect(figures.resumeDynamo).toBe(2);
}, 60_000);

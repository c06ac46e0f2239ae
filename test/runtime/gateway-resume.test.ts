/**
 * Finishing an approval through AgentCore Gateway without a session: the Gateway's documented
 * Lambda-target context carries no session id, so a repeated call names a new call; the target's
 * `resume_approval` tool resumes the approval its args name, and a `pending_approval` reply says so.
 */
import * as z from 'zod';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import { captureLogs, lambdaContext } from '../support/events';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

/** The client context AgentCore Gateway sends a Lambda target (AWS's documented keys: no session id). */
function gateway(toolName: string) {
  return {
    ...lambdaContext(10_000),
    clientContext: {
      client: {} as never,
      env: {} as never,
      custom: {
        bedrockAgentCoreMessageVersion: '1.0',
        bedrockAgentCoreAwsRequestId: 'aws-req-1',
        bedrockAgentCoreMcpMessageId: '7',
        bedrockAgentCoreGatewayId: 'gw-1',
        bedrockAgentCoreTargetId: 'tg-1',
        bedrockAgentCoreToolName: toolName,
      },
    },
  };
}

function setUp() {
  const approvals = new MemoryApprovalStore();
  const runs: string[] = [];
  const published: unknown[] = [];
  const replies: ReplyPublisher = { publish: async (reply) => void published.push(reply) };
  const refund = tool({
    name: 'refund',
    input: z.object({ orderId: z.string() }),
    requiresApproval: true,
    run: ({ orderId }) => {
      runs.push(orderId);
      return { refunded: orderId };
    },
  });
  const handler = toolHandler(new ToolExecutor({ tools: [refund], approvals }), { replies });
  return { handler, approvals, runs, published };
}

test('without a session a repeated call opens a new approval: the pending reply says to call resume_approval instead', async () => {
  const { handler } = setUp();
  const first = (await handler({ orderId: 'o-1' }, gateway('billing___refund'))) as any;
  const again = (await handler({ orderId: 'o-1' }, gateway('billing___refund'))) as any;
  expect(again.approval_id).not.toBe(first.approval_id);
  expect(first).toMatchObject({ status: 'pending_approval', tool: 'refund', approval_id: expect.stringMatching(/^apr_/) });
  expect(first.next).toBe(`Once approved, call billing___resume_approval with {"approval_id":"${first.approval_id}"} for the result.`);
});

test('resume_approval answers as the approval stands: undecided, then the result, then already_done with it', async () => {
  const { handler, approvals, runs, published } = setUp();
  const pending = (await handler({ orderId: 'o-2' }, gateway('billing___refund'))) as any;
  const resume = () => handler({ approval_id: pending.approval_id }, gateway('billing___resume_approval')) as Promise<any>;

  const early = await resume();
  expect(early).toMatchObject({ status: 'error', tool: 'refund', approval_id: pending.approval_id, error: { type: 'ToolUsageError', retryable: false } });
  expect(early.error.message).toContain('is not decided yet');

  await approvals.decide(pending.approval_id, { approved: true, by: 'alice' });
  expect(await resume()).toEqual({
    status: 'ok',
    tool: 'refund',
    run_id: pending.run_id,
    call_id: pending.call_id,
    approval_id: pending.approval_id,
    result: { refunded: 'o-2' },
  });
  expect(await resume()).toMatchObject({ status: 'already_done', approval_id: pending.approval_id, result: { refunded: 'o-2' } });
  expect(runs).toEqual(['o-2']);
  // Every answer reached the reply bus, as any Gateway reply does.
  expect(published).toHaveLength(4);
});

test('a denied approval answers ApprovalDenied as an error reply, with the reason', async () => {
  const { handler, approvals, runs } = setUp();
  const pending = (await handler({ orderId: 'o-3' }, gateway('billing___refund'))) as any;
  await approvals.decide(pending.approval_id, { approved: false, by: 'bob', reason: 'duplicate order' });
  const reply = (await handler({ approval_id: pending.approval_id }, gateway('billing___resume_approval'))) as any;
  expect(reply).toMatchObject({ status: 'error', tool: 'refund', error: { type: 'ApprovalDenied' } });
  expect(reply.error.message).toContain('duplicate order');
  expect(runs).toEqual([]);
});

test.each([
  ['an unknown approval', { approval_id: 'apr_nope' }, 'ApprovalNotFound', 'Approval apr_nope does not exist or has expired.'],
  ['no approval_id', {}, 'ToolUsageError', 'resume_approval needs `approval_id`.'],
  ['an approval_id that is not a string', { approval_id: 5 }, 'ToolUsageError', 'Invalid envelope: `approval_id` must be a string, got a number.'],
  ['another key', { approval_id: 'apr_x', tool: 'refund' }, 'ToolUsageError', 'Invalid envelope: has both `tool` and `approval_id`'],
])('resume_approval with %s is an error reply, never thrown', async (_label, args, type, message) => {
  const { handler, runs } = setUp();
  const reply = (await handler(args, gateway('billing___resume_approval'))) as any;
  expect(reply).toMatchObject({ status: 'error', tool: 'resume_approval', error: { type, retryable: false } });
  expect(reply.error.message).toContain(message);
  expect(reply.approval_id).toBe(typeof (args as any).approval_id === 'string' ? (args as any).approval_id : undefined);
  expect(runs).toEqual([]);
});

test('attack: resume_approval of an approval that no Gateway call requested is refused before any claim or run, revealing nothing', async () => {
  const { handler, approvals, runs } = setUp();
  // Another caller's call, sent with ids it chose (so its approval id can be computed by anyone who knows them).
  const direct = (await handler({ tool: 'refund', args: { orderId: 'o-private' }, run_id: 'r-private', call_id: 'c-1' }, lambdaContext(10_000))) as any;
  expect(direct.status).toBe('pending_approval');
  const probe = () => handler({ approval_id: direct.approval_id }, gateway('billing___resume_approval')) as Promise<any>;
  const missing = (await handler({ approval_id: 'apr_nope' }, gateway('billing___resume_approval'))) as any;
  // As the Gateway sees it, the approval does not exist, whatever its state.
  const asMissing = { ...missing, approval_id: direct.approval_id, error: { ...missing.error, message: `Approval ${direct.approval_id} does not exist or has expired.` } };

  expect(await probe()).toEqual(asMissing); // undecided

  await approvals.decide(direct.approval_id, { approved: true, by: 'alice' });
  const approved = await probe();
  expect(approved).toEqual(asMissing);
  expect(JSON.stringify(approved)).not.toContain('o-private');
  expect(JSON.stringify(approved)).not.toContain('r-private');
  expect(runs).toEqual([]); // not run
  expect((await approvals.get(direct.approval_id))?.claimedUntil).toBeUndefined(); // not claimed

  // Its own resume runs it, once; the Gateway still sees nothing of it, not even that it finished.
  expect(await handler({ approval_id: direct.approval_id }, lambdaContext(10_000))).toMatchObject({ status: 'ok', result: { refunded: 'o-private' } });
  expect(runs).toEqual(['o-private']);
  expect(await probe()).toEqual(asMissing);
});

test('attack: resume_approval of a denied approval that no Gateway call requested does not tell the denial or its reason', async () => {
  const { handler, approvals, runs } = setUp();
  const direct = (await handler({ tool: 'refund', args: { orderId: 'o-4' }, run_id: 'r-4', call_id: 'c-4' }, lambdaContext(10_000))) as any;
  await approvals.decide(direct.approval_id, { approved: false, by: 'bob', reason: 'private reason' });
  const reply = (await handler({ approval_id: direct.approval_id }, gateway('billing___resume_approval'))) as any;
  expect(reply).toMatchObject({ status: 'error', tool: 'resume_approval', run_id: null, error: { type: 'ApprovalNotFound' } });
  expect(JSON.stringify(reply)).not.toContain('private reason');
  expect(runs).toEqual([]);
});

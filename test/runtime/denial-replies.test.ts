/**
 * Replies to end users carry a denial's reason but not who denied it: through AgentCore Gateway's
 * `resume_approval` and a Bedrock Agents call, the ApprovalDenied reply (and its log line and
 * reply-bus event) holds the reason and never the approver's identity, which stays in the approval's
 * record (`decided_by`, read by the approvals API and the CLI). The same through the bundles:
 * test/construct/gateway-bundle-hostile.test.ts and bedrock-agent-bundle.test.ts.
 */
import * as z from 'zod';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type ReplyPublisher } from '../../lambda';
import functionEvent from '../fixtures/events/bedrockAgentFunctionEvent.json';
import { bodyOf, callOf } from '../support/bedrock-agent';
import { captureLogs, gatewayContext, lambdaContext } from '../support/events';

const APPROVER = 'arn:aws:sts::123456789012:assumed-role/RefundApprovers/mallory.approver';
const REASON = 'order already refunded';

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

function setUp() {
  const approvals = new MemoryApprovalStore();
  const published: unknown[] = [];
  const replies: ReplyPublisher = { publish: async (reply) => void published.push(reply) };
  const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: ({ orderId }) => ({ refunded: orderId }) });
  const handler = toolHandler(new ToolExecutor({ tools: [refund], approvals }), { replies });
  return { handler, approvals, published };
}


/** The reply holds the reason, and neither it nor the log lines nor the bus hold the approver. */
function expectReasonOnly(denial: any, published: unknown[]): void {
  expect(denial).toMatchObject({ status: 'error', tool: 'refund', error: { type: 'ApprovalDenied', retryable: false } });
  expect(denial.error.message).toBe(`Approval ${denial.approval_id} for tool refund was denied: ${REASON}`);
  for (const text of [JSON.stringify(denial), ...logs.text(), JSON.stringify(published)]) {
    expect(text).not.toContain(APPROVER);
    expect(text).not.toContain('mallory');
  }
}

test('AgentCore Gateway: resume_approval of a denied approval answers the reason, not the approver', async () => {
  const { handler, approvals, published } = setUp();
  const pending = (await handler({ orderId: 'o-1' }, gatewayContext('billing___refund'))) as any;
  await approvals.decide(pending.approval_id, { approved: false, by: APPROVER, reason: REASON });
  const denial = await handler({ approval_id: pending.approval_id }, gatewayContext('billing___resume_approval'));
  expectReasonOnly(denial, published);
  // The record keeps who decided.
  expect((await approvals.read(pending.approval_id))?.decidedBy).toBe(APPROVER);
});

test('Bedrock Agents: the same call after its denial answers the reason, not the approver', async () => {
  const { handler, approvals, published } = setUp();
  const call = callOf(functionEvent, 'refund', { orderId: 'o-2' });
  const pending = bodyOf(await handler(call, lambdaContext(10_000)));
  await approvals.decide(pending.approval_id, { approved: false, by: APPROVER, reason: REASON });
  const response = (await handler(call, lambdaContext(10_000))) as any;
  expect(response.response.functionResponse).not.toHaveProperty('responseState');
  expect(JSON.stringify(response)).not.toContain(APPROVER);
  expectReasonOnly(bodyOf(response), published);
});

test('a denial without a reason says so, and still names no one', async () => {
  const { handler, approvals } = setUp();
  const pending = (await handler({ orderId: 'o-3' }, gatewayContext('billing___refund'))) as any;
  await approvals.decide(pending.approval_id, { approved: false, by: APPROVER });
  const denial = (await handler({ approval_id: pending.approval_id }, gatewayContext('billing___resume_approval'))) as any;
  expect(denial.error.message).toBe(`Approval ${pending.approval_id} for tool refund was denied (no reason given)`);
});

import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as z from 'zod';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor, type Reply } from '../../lambda';
import { ENV } from '../../lambda/construct-contract';
import { ApprovalsInbox, InboxSignIn, ToolHandler } from '../../lib';
import { ENV as STACK_ENV, props, unbundledApp } from '../construct/helpers';
import { local, removeMade } from '../local/sample-assembly';
import { captureLogs, lambdaContext } from '../support/events';
import { synthesizeInboxApp } from './inbox-app';

/** Links to the inbox: a `pending_approval` reply's `inbox_url`, and the approvers' notification. */

describe('a pending_approval reply', () => {
  let logs: ReturnType<typeof captureLogs>;
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => {
    logs.restore();
    delete process.env[ENV.inboxUrl];
  });

  const refund = tool({ name: 'refund', input: z.object({ orderId: z.string() }), requiresApproval: true, run: () => ({ ok: true }) });
  const call = { tool: 'refund', args: { orderId: 'o-1' }, run_id: 'run-1', call_id: 'call/1' };
  const invoke = () => toolHandler(new ToolExecutor({ tools: [refund], approvals: new MemoryApprovalStore() }), { replies: false })(call, lambdaContext(10_000)) as Promise<Reply>;

  test("carries the approval's inbox link when an inbox serves the handler", async () => {
    process.env[ENV.inboxUrl] = 'https://abc.execute-api.us-east-1.amazonaws.com/#/o/refunds/a/';
    const reply = (await invoke()) as any;
    expect(reply.status).toBe('pending_approval');
    expect(reply.inbox_url).toBe(`https://abc.execute-api.us-east-1.amazonaws.com/#/o/refunds/a/${encodeURIComponent(reply.approval_id)}`);
  });

  test('has none otherwise', async () => {
    expect(await invoke()).not.toHaveProperty('inbox_url');
  });
});

test("the approvers' notification leads with the approval's inbox page", () => {
  const stack = new Stack(unbundledApp(), 'Links', { env: STACK_ENV });
  const bus = new events.EventBus(stack, 'Bus');
  const topic = new sns.Topic(stack, 'Approvers');
  const tools = new ToolHandler(stack, 'Tools', props({ owner: 'refunds', replyBus: bus, approvalNotifications: topic }));
  new ApprovalsInbox(stack, 'Inbox', { handlers: [tools], signIn: InboxSignIn.oidc({ issuer: 'https://id.example.com', clientId: 'c' }) });
  const rules = Template.fromStack(stack).findResources('AWS::Events::Rule', { Properties: { EventPattern: { 'detail-type': ['Tool Approval Requested'] } } });
  const target = Object.values<any>(rules)[0].Properties.Targets[0];
  expect(target.InputTransformer.InputPathsMap['detail-inbox_url']).toBe('$.detail.inbox_url');
  expect(target.InputTransformer.InputTemplate).toMatch(/^"Decide in the inbox: <detail-inbox_url> \. Tool <detail-tool> needs approval/);
});

test('`cdk-tool-handler local` prints the inbox of the stack\'s ApprovalsInbox, and its approval links', async () => {
  const assembly = synthesizeInboxApp();
  try {
    const result = await local(['local', '--assembly', assembly, '--once', JSON.stringify({ tool: 'refund', args: { orderId: 'o-1' }, run_id: 'r', call_id: 'c' })]);
    expect(result.code).toBe(0);
    const inbox = /approvals inbox (http:\/\/127\.0\.0\.1:\d+\/)/.exec(result.stdout)?.[1];
    expect(inbox).toBeDefined();
    expect(result.stdout).toMatch(new RegExp(`pending_approval refund apr_\\S+ \\(expires [^)]+\\) decide at ${inbox}#/o/refunds/a/apr_`));
  } finally {
    removeMade();
  }
}, 120_000);

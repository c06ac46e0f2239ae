/**
 * What the local run prints works in the local run: the approval notification's approve
 * line, which the construct's template writes for the deployed stack (`--stack`), is printed with
 * `--local`; the refusal to decide without a terminal suggests a `show` of the same API.
 */
import * as path from 'node:path';
import * as fs from 'node:fs';
import { Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import { ToolHandler } from '../../lib';
import { localCommands } from '../../local/notifications';
import { local, REPO, removeMade, synthesizeApp } from './sample-assembly';

afterAll(removeMade);

test('the notification of a stack with approvalNotifications says `approvals approve <id> --local`', async () => {
  const outdir = synthesizeApp((app) => {
    const stack = new Stack(app, 'Notified');
    new ToolHandler(stack, 'Tools', {
      entry: path.join(REPO, 'bin', 'tools.ts'),
      tools: ['add', 'refund'],
      replyBus: new events.EventBus(stack, 'Replies'),
      approvalNotifications: new sns.Topic(stack, 'Approvers'),
    });
  });
  // The template keeps the cloud's line.
  expect(fs.readFileSync(path.join(outdir, 'Notified.template.json'), 'utf8')).toContain('approvals approve <detail-approval_id> --stack Notified');

  const result = await local(['local', '--assembly', outdir, '--once', JSON.stringify({ tool: 'refund', args: { orderId: 'o-1' } })]);
  expect(result.code).toBe(0);
  const id = /← pending_approval refund (apr_\S+)/.exec(result.stdout)?.[1];
  expect(id).toBeDefined();
  const notification = result.stdout.split('\n').find((line) => line.startsWith('sns(') && line.includes('needs approval'));
  expect(notification).toMatch(new RegExp(`Approve: npx cdk-tool-handler approvals approve ${id} --local$`));
  expect(result.stdout).not.toContain('--stack Notified');
}, 120_000);

test.each([
  ['Approve: npx cdk-tool-handler approvals approve apr_1 --stack MyStack', 'Approve: npx cdk-tool-handler approvals approve apr_1 --local'],
  ['Approve: npx cdk-tool-handler approvals approve apr_1 --stack MyStack --output ToolsApprovalsApiUrl1A2B', 'Approve: npx cdk-tool-handler approvals approve apr_1 --local'],
  ['Tool refund was not approved in time: approval apr_1 expired.', 'Tool refund was not approved in time: approval apr_1 expired.'],
])('localCommands(%j)', (message, local) => {
  expect(localCommands(message)).toBe(local);
});

describe('the refusal to decide without a terminal suggests `show` on the same API', () => {
  test.each([
    [['--local'], '`approvals show apr_1 --local`'],
    [['--stack', 'MyStack', '--output', 'ApiUrl'], '`approvals show apr_1 --stack MyStack --output ApiUrl`'],
    [['--url', 'https://abc.lambda-url.us-east-1.on.aws/'], '`approvals show apr_1 --url https://abc.lambda-url.us-east-1.on.aws/`'],
  ])('%j', async (where, suggestion) => {
    const result = await local(['approvals', 'approve', 'apr_1', ...where]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Check the approval with ${suggestion}, then pass --yes to approve it without asking.`);
  });
});

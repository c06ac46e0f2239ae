/**
 * The inbox tests' app: the sample's tools (bin/tools.ts: `add`, and `refund`, which needs approval)
 * in a ToolHandler served by an ApprovalsInbox whose `support` group decides its approvals; Cognito
 * sign-in in the template, which the local run replaces with its local OpenID issuer.
 */
import * as path from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import { ApprovalsInbox, InboxSignIn, ToolHandler } from '../../lib';
import { synthesizeApp } from '../local/sample-assembly';

export const INBOX_GROUP = 'support';

export function synthesizeInboxApp(): string {
  return synthesizeApp((app) => {
    const stack = new Stack(app, 'InboxSample');
    const tools = new ToolHandler(stack, 'Tools', {
      entry: path.join(__dirname, '..', '..', 'bin', 'tools.ts'),
      allowedTools: ['add', 'refund'],
      owner: 'refunds',
      timeout: Duration.seconds(30),
    });
    new ApprovalsInbox(stack, 'Inbox', {
      handlers: [tools],
      signIn: InboxSignIn.cognito(),
      approvers: [{ groups: [INBOX_GROUP], handlers: [tools] }],
    });
  });
}

/** CloudFormation reads of one stack: its outputs (`DescribeStacks`), its template and resources. Loaded only by `--stack` (see `stack-url.ts`, `audit-log-groups.ts`). */
import { CloudFormationClient, DescribeStacksCommand, GetTemplateCommand, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

export interface StackOutput {
  readonly key: string;
  readonly value: string;
}

/** The stack's outputs; `undefined` when CloudFormation answered no stack. */
export async function describeStackOutputs(input: {
  stack: string;
  region?: string;
  credentials: AwsCredentialIdentityProvider;
}): Promise<StackOutput[] | undefined> {
  const client = new CloudFormationClient({ region: input.region, credentials: input.credentials, maxAttempts: 2 });
  try {
    const reply = await client.send(new DescribeStacksCommand({ StackName: input.stack }));
    const stack = reply.Stacks?.[0];
    if (!stack) return undefined;
    return (stack.Outputs ?? []).flatMap((o) =>
      o.OutputKey !== undefined && o.OutputValue !== undefined ? [{ key: o.OutputKey, value: o.OutputValue }] : [],
    );
  } finally {
    client.destroy();
  }
}

/** One resource of a stack: its logical id, its physical id (a log group's name, a function's name) and its type. */
export interface StackResource {
  readonly logicalId: string;
  readonly physicalId: string;
  readonly type: string;
}

/**
 * The stack's template as deployed (`GetTemplate`, the original stage: what `cdk deploy` sent) and
 * its resources (`ListStackResources`, every page).
 */
export async function describeStackTemplate(input: {
  stack: string;
  region?: string;
  credentials: AwsCredentialIdentityProvider;
}): Promise<{ templateBody: string; resources: StackResource[] }> {
  const client = new CloudFormationClient({ region: input.region, credentials: input.credentials, maxAttempts: 2 });
  try {
    const template = await client.send(new GetTemplateCommand({ StackName: input.stack }));
    const resources: StackResource[] = [];
    let next: string | undefined;
    do {
      const page = await client.send(new ListStackResourcesCommand({ StackName: input.stack, NextToken: next }));
      for (const r of page.StackResourceSummaries ?? []) {
        if (r.LogicalResourceId && r.PhysicalResourceId && r.ResourceType) {
          resources.push({ logicalId: r.LogicalResourceId, physicalId: r.PhysicalResourceId, type: r.ResourceType });
        }
      }
      next = page.NextToken;
    } while (next);
    return { templateBody: template.TemplateBody ?? '', resources };
  } finally {
    client.destroy();
  }
}

/** `DescribeStacks` of one stack: its outputs. Loaded only by `--stack` (see `stack-url.ts`). */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
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

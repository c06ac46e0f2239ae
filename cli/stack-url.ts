/** The approvals API's URL from a CloudFormation stack's outputs (`DescribeStacks`). */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { CliError } from '../console/errors';
import { API_URL_OUTPUT_SUFFIX } from '../lambda/construct-contract';
import type { StackOutput } from './cloudformation';
import { withProcessEnv } from './process-env';

export interface StackUrlInput {
  readonly stack: string;
  /** Which output, when the stack has several. */
  readonly output?: string;
  /** @default - the SDK's (environment, then profile) */
  readonly region?: string;
  readonly credentials: AwsCredentialIdentityProvider;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export type Output = StackOutput;

export async function readStackUrl(input: StackUrlInput): Promise<string> {
  const outputs = await describeOutputs(input);
  return pickOutput(input.stack, outputs, input.output).value;
}

/** Picks the API's URL among a stack's outputs: the one whose key ends in `ApprovalsApiUrl`, or `--output`. */
export function pickOutput(stack: string, outputs: readonly Output[], wanted: string | undefined): Output {
  const candidates = outputs.filter((o) => o.key.endsWith(API_URL_OUTPUT_SUFFIX));
  const keys = candidates.map((o) => o.key).join(', ');
  if (wanted !== undefined) {
    const found = candidates.find((o) => o.key === wanted);
    if (found) return found;
    throw new CliError(
      candidates.length === 0
        ? `Stack ${stack} has no output whose key ends in ${API_URL_OUTPUT_SUFFIX}.`
        : `Stack ${stack} has no output ${wanted} ending in ${API_URL_OUTPUT_SUFFIX}; it has: ${keys}.`,
    );
  }
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    throw new CliError(`Stack ${stack} has no output whose key ends in ${API_URL_OUTPUT_SUFFIX}: is the ToolHandler with approvals deployed in it?`);
  }
  throw new CliError(`Stack ${stack} has several approvals APIs: pass --output with one of ${keys}.`);
}

async function describeOutputs(input: StackUrlInput): Promise<Output[]> {
  // Loaded on use, so that `--url` never pays for the CloudFormation client. `require`, not `import()`:
  // the bundle stays one synchronous CommonJS file, and jest's VM runs it without flags.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { describeStackOutputs } = require('./cloudformation') as typeof import('./cloudformation');
  return withProcessEnv(input.env, async () => {
    let outputs: Output[] | undefined;
    try {
      outputs = await describeStackOutputs({ stack: input.stack, region: input.region, credentials: input.credentials });
    } catch (error) {
      throw stackError(input.stack, error);
    }
    if (!outputs) throw new CliError(`Stack ${input.stack} was not found.`);
    return outputs;
  });
}

/** What went wrong reading `stack`, and what to fix; `permissions` names the actions a denial is about. */
export function stackError(stack: string, error: unknown, permissions = 'cloudformation:DescribeStacks'): CliError {
  if (error instanceof CliError) return error;
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const message = e?.message ?? String(error);
  if (/region is missing/i.test(message)) {
    return new CliError('No region for CloudFormation: pass --region or set AWS_REGION (or a region in your profile).');
  }
  if (e?.name === 'ValidationError' && /does not exist/i.test(message)) {
    return new CliError(`Stack ${stack} was not found: ${message} (check the name and --region).`);
  }
  if (e?.name === 'AccessDenied' || e?.$metadata?.httpStatusCode === 403) {
    return new CliError(`Not allowed to read stack ${stack} (${permissions}): ${message}`);
  }
  const name = e?.name && e.name !== 'Error' ? `${e.name}: ` : '';
  return new CliError(`Could not read stack ${stack}: ${name}${message}`);
}

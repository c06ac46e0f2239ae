/**
 * The caller's AWS credentials, from the SDK's default chain, or a message that says how to provide
 * them. `defaultProvider` of `@aws-sdk/credential-provider-node` is the chain itself: the
 * `fromNodeProviderChain` of `@aws-sdk/credential-providers` only wraps it (and this package's
 * version exports no other name for it).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { CliError } from '../console/errors';
import { withProcessEnv } from './process-env';

export const MISSING_CREDENTIALS_HELP = [
  'No AWS credentials found. Provide them in one of these ways:',
  '  - AWS_PROFILE=<profile> with a profile set up by `aws configure` or `aws configure sso` (then `aws sso login`)',
  '  - the variables AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)',
  '  - a role of the machine (container or instance role, web identity)',
].join('\n');

/**
 * Resolves credentials once, with `env` as the SDK's environment. The result is a provider of those
 * fixed credentials, for the signer and the CloudFormation client alike: one run signs with one
 * identity.
 */
export async function resolveCredentials(
  env: Readonly<Record<string, string | undefined>>,
): Promise<AwsCredentialIdentityProvider> {
  let credentials: AwsCredentialIdentity;
  try {
    credentials = await withProcessEnv(env, () => defaultProvider()());
  } catch (error) {
    throw credentialsError(error);
  }
  return async () => credentials;
}

function credentialsError(error: unknown): CliError {
  const e = error as { name?: string; message?: string };
  if (e?.name === 'CredentialsProviderError' && /could not load credentials from any providers/i.test(e.message ?? '')) {
    return new CliError(MISSING_CREDENTIALS_HELP);
  }
  // A chain link that was configured but failed (an expired SSO token, a bad profile): its own words say more.
  return new CliError(`Could not load AWS credentials: ${e?.message ?? String(error)}\n${MISSING_CREDENTIALS_HELP}`);
}

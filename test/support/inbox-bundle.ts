/**
 * The approvals inbox's REAL bundle (dist/functions/approvals-inbox, what the construct deploys,
 * built by `npm run build:functions`), loaded in this process with the environment the construct
 * would give it, its DynamoDB client pointed at the tests' dynalite. Its verifier (jose) is inside the
 * bundle, as in Lambda.
 */
import * as path from 'node:path';
import type { ApprovalsInbox } from '../../lambda/inbox/inbox';
import { INBOX_ENV } from '../../lambda/construct-contract';
import type { InboxHandler } from '../../lambda/inbox/settings';
import { dynaliteEndpoint } from './dynamo';

export const INBOX_BUNDLE = path.join(__dirname, '..', '..', 'dist', 'functions', 'approvals-inbox', 'index.js');

export interface InboxBundleConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly origin: string;
  readonly handlers: readonly InboxHandler[];
  readonly approvers?: Record<string, string[]>;
  readonly groupsClaim?: string;
}

/**
 * The bundle's handler, configured by `config`. The environment stays set for the test file (its
 * SDK client reads the endpoint and keys on first use), as a Lambda container's does.
 */
export function loadInboxBundle(config: InboxBundleConfig): ApprovalsInbox {
  const env: Record<string, string> = {
    [INBOX_ENV.issuer]: config.issuer,
    [INBOX_ENV.clientId]: config.clientId,
    [INBOX_ENV.origin]: config.origin,
    [INBOX_ENV.handlers]: JSON.stringify(config.handlers),
    [INBOX_ENV.approvers]: JSON.stringify(config.approvers ?? {}),
    [INBOX_ENV.groupsClaim]: config.groupsClaim ?? 'groups',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(),
    AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1',
  };
  Object.assign(process.env, env);
  let handler: ApprovalsInbox | undefined;
  jest.isolateModules(() => {
    handler = require(INBOX_BUNDLE).handler;
  });
  return handler!;
}

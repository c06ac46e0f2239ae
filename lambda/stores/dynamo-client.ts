import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The region a local run falls back to, so that a missing region never fails it. */
export const FALLBACK_REGION = 'us-east-1';

/**
 * Timeouts of the default client, in ms. A single-item request takes milliseconds; one that hangs
 * fails after these (as a retryable store error) instead of holding the invocation to its end. The
 * SDK only warns about a request over `requestTimeout` unless `throwOnRequestTimeout` is set.
 */
export const DEFAULT_CLIENT_TIMEOUTS = {
  connectionTimeout: 3000,
  requestTimeout: 5000,
  throwOnRequestTimeout: true,
} as const;

let shared: DynamoDBDocumentClient | undefined;

/**
 * The region for the default client: `AWS_REGION` (set by Lambda), then `AWS_DEFAULT_REGION`
 * (which the SDK itself ignores), then `us-east-1`.
 */
export function resolveRegion(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || FALLBACK_REGION;
}

/**
 * The container's DynamoDB document client, created on first use (so that tests and local runs can
 * set `AWS_ENDPOINT_URL_DYNAMODB` or the region first) and reused by every warm invocation.
 */
export function sharedDocumentClient(): DynamoDBDocumentClient {
  shared ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: resolveRegion(), requestHandler: { ...DEFAULT_CLIENT_TIMEOUTS } }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return shared;
}

/** Forgets the shared client, so the next use creates one from the environment as it is then. For tests. */
export function resetSharedDocumentClient(): void {
  shared?.destroy();
  shared = undefined;
}

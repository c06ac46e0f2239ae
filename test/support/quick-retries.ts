/**
 * A retry strategy for clients behind the fault proxy: the SDK's rules for what is retryable
 * (its own error classification), but short fixed delays instead of the standard exponential
 * backoff (up to seconds for throttling), so that a fault-injection run stays short.
 */
import type { RetryErrorInfo, RetryStrategyV2, RetryToken, StandardRetryToken } from '@smithy/types';

export function quickRetries(maxAttempts: number, delayMs = 20): RetryStrategyV2 {
  const token = (retries: number): StandardRetryToken =>
    ({ getRetryCount: () => retries, getRetryDelay: () => delayMs * retries, getRetryTokenCount: () => 0 }) as unknown as StandardRetryToken;
  return {
    acquireInitialRetryToken: async () => token(0),
    refreshRetryTokenForRetry: async (previous: RetryToken, info: RetryErrorInfo) => {
      const retries = previous.getRetryCount() + 1;
      if (info.errorType === 'CLIENT_ERROR' || retries >= maxAttempts) throw new Error('no more retries');
      return token(retries);
    },
    recordSuccess: () => undefined,
  };
}

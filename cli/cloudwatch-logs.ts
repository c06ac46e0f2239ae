/** CloudWatch Logs `FilterLogEvents` of a few log groups, every page. Loaded only by `audit --stack` (see commands/audit.ts). */
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

export interface LogEvent {
  readonly logGroup: string;
  /** Epoch milliseconds, as CloudWatch Logs gives it. */
  readonly timestamp: number;
  readonly message: string;
}

/** Fails with the log group it was reading, and the SDK's error. */
export class LogGroupReadError extends Error {
  constructor(
    readonly logGroup: string,
    readonly cause: unknown,
  ) {
    super(`reading ${logGroup} failed`);
    this.name = 'LogGroupReadError';
  }
}

/** The events of each log group in `[startTime, endTime]` that `filterPattern` matches, group by group. */
export async function filterLogEvents(input: {
  readonly logGroups: readonly string[];
  readonly filterPattern: string;
  readonly startTime: number;
  readonly endTime: number;
  readonly region?: string;
  readonly credentials: AwsCredentialIdentityProvider;
}): Promise<LogEvent[]> {
  const client = new CloudWatchLogsClient({ region: input.region, credentials: input.credentials, maxAttempts: 3 });
  const events: LogEvent[] = [];
  try {
    for (const logGroup of input.logGroups) {
      let next: string | undefined;
      do {
        let page;
        try {
          page = await client.send(
            new FilterLogEventsCommand({
              logGroupName: logGroup,
              filterPattern: input.filterPattern,
              startTime: input.startTime,
              endTime: input.endTime,
              nextToken: next,
            }),
          );
        } catch (error) {
          throw new LogGroupReadError(logGroup, error);
        }
        for (const e of page.events ?? []) {
          if (typeof e.message === 'string') events.push({ logGroup, timestamp: e.timestamp ?? 0, message: e.message });
        }
        next = page.nextToken;
      } while (next);
    }
  } finally {
    client.destroy();
  }
  return events;
}

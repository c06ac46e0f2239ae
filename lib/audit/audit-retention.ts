import * as logs from 'aws-cdk-lib/aws-logs';
import { DEFAULTS } from '../defaults';

/** What the retention of a function's log group follows. */
export interface RetentionProps {
  readonly logRetention?: logs.RetentionDays;
  readonly auditRetention?: logs.RetentionDays;
}

/** The retention of a log group of a function that writes no audit record: `logRetention`. */
export function logRetentionOf(props: RetentionProps): logs.RetentionDays {
  return props.logRetention ?? DEFAULTS.logRetention;
}

/**
 * The retention of a log group that holds audit records (the handler's, the approvals API's, the
 * expirer's). A log group has one retention, so the longer of `logRetention` and `auditRetention`
 * wins: audit records are never kept for less than asked, and the function's other lines are kept
 * as long as its audit records. `RetentionDays` are numbers of days (`INFINITE` the largest).
 */
export function auditLogRetentionOf(props: RetentionProps): logs.RetentionDays {
  const logRetention = logRetentionOf(props);
  const auditRetention = props.auditRetention ?? logRetention;
  return auditRetention > logRetention ? auditRetention : logRetention;
}

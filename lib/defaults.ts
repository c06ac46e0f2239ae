import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';

/**
 * The construct's defaults, in one place so that the TSDoc `@default` of each prop and the code that
 * applies it cannot drift apart (the tests check them against the synthesized template).
 */
export const DEFAULTS = {
  handler: 'handler',
  timeout: Duration.seconds(60),
  margin: Duration.seconds(1),
  maxReceiveCount: 5,
  batchSize: 10,
  approvalTtl: Duration.days(7),
  memorySize: 512,
  logRetention: logs.RetentionDays.TWO_YEARS,
  /** Lambda's asynchronous invocation (EventBridge rules, `InvocationType: Event`). */
  asyncRetryAttempts: 2,
  asyncMaxEventAge: Duration.hours(1),
  /** Each EventBridge rule target. */
  ruleRetryAttempts: 3,
  ruleMaxEventAge: Duration.hours(1),
  /** Messages in a dead-letter queue are kept as long as SQS allows. */
  deadLetterRetention: Duration.days(14),
  /** A created queue's visibility timeout is this many function timeouts, plus the batching window. */
  visibilityTimeoutFactor: 6,
} as const;

export function defaultRuntime(): lambda.Runtime {
  return lambda.Runtime.NODEJS_22_X;
}

export function defaultArchitecture(): lambda.Architecture {
  return lambda.Architecture.ARM_64;
}

/** Lambda's hard limit on a function timeout. */
export const MAX_FUNCTION_TIMEOUT_SECONDS = 15 * 60;

import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';

/**
 * An EventBridge rule that feeds tool calls to the function: each matching event's `detail` is one
 * envelope (`{"tool": ..., "args": ...}` or `{"approval_id": ...}`).
 *
 * EventBridge invokes the function asynchronously. The rule target retries failed deliveries and
 * keeps events it could not deliver in the construct's `eventDeadLetterQueue`; a call that the
 * function fails is retried by Lambda and then kept in the same queue (the function's on-failure
 * destination).
 */
export interface ToolEventSourceOptions {
  /**
   * The event bus whose events the rule matches.
   *
   * @default - the account's default event bus
   */
  readonly eventBus?: events.IEventBus;

  /**
   * Which events carry tool calls. Must match on at least one field.
   */
  readonly eventPattern: events.EventPattern;

  /**
   * A name for the rule.
   *
   * @default - a name that CloudFormation generates
   */
  readonly ruleName?: string;

  /**
   * A description of the rule.
   *
   * @default - no description
   */
  readonly description?: string;

  /**
   * Whether the rule is enabled.
   *
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * How many times EventBridge retries handing an event to the function (0 to 185) before it puts the
   * event in the dead-letter queue.
   *
   * @default 3
   */
  readonly retryAttempts?: number;

  /**
   * How long EventBridge keeps trying to hand an event to the function (1 minute to 24 hours).
   *
   * @default Duration.hours(1)
   */
  readonly maxEventAge?: Duration;
}

import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { IToolHandler } from '../tool-handler-ref';

/**
 * Props of `ToolHandler.invokeTask`: a Step Functions task that invokes the handler with an envelope
 * (a direct invoke) and whose result is the reply.
 */
export interface ToolInvokeTaskProps extends sfn.TaskStateBaseProps {
  /** The handler to invoke. */
  readonly toolHandler: IToolHandler;

  /**
   * The envelope: `{ tool, args, run_id?, call_id? }` or `{ approval_id }`.
   *
   * @default - the state's input
   */
  readonly payload?: sfn.TaskInput;

  /**
   * Attempts for the retryable errors (`ToolFailed`, `ToolTimeout`, `CallInProgress`,
   * `StoreUnavailable`, and Lambda's throttling), counting the first.
   *
   * @default 3
   */
  readonly retryAttempts?: number;

  /**
   * Wait before the first retry.
   *
   * @default Duration.seconds(2)
   */
  readonly retryInterval?: Duration;

  /**
   * Multiplier of the wait between retries.
   *
   * @default 2
   */
  readonly retryBackoffRate?: number;
}

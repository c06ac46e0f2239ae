import { Duration } from 'aws-cdk-lib';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { failAt } from '../errors';
import { ToolInvokeTaskProps } from '../options/invoke-task-props';

/**
 * Errors of a call that a retry can fix (`retryable: true`), by the name Step Functions sees
 * (the error's class name), and Lambda's throttling. `LambdaInvoke` itself already retries Lambda's
 * service exceptions (`Lambda.ServiceException`, ...). Everything else is left to `Catch`.
 */
export const RETRYABLE_TOOL_ERRORS = ['ToolFailed', 'ToolTimeout', 'CallInProgress', 'StoreUnavailable', 'RateLimited', 'Lambda.TooManyRequestsException'];

/** Errors retrying cannot fix: catch them by name (`ApprovalDenied`, `ToolNotFound`, ...). */
export const FINAL_TOOL_ERRORS = ['ToolUsageError', 'ToolNotFound', 'ApprovalNotFound', 'ApprovalDenied', 'CallerRequired', 'ToolOutputInvalid', 'StoreMisconfigured', 'AdapterError'];

export function createInvokeTask(scope: Construct, id: string, props: ToolInvokeTaskProps): tasks.LambdaInvoke {
  const { toolHandler, retryAttempts, retryInterval, retryBackoffRate, ...taskProps } = props;
  const attempts = retryAttempts ?? 3;
  if (!Number.isInteger(attempts) || attempts < 1) {
    failAt(`${scope.node.path}/${id}`, `\`retryAttempts\` must be a whole number of at least 1, got: ${attempts}.`);
  }
  const task = new tasks.LambdaInvoke(scope, id, {
    ...taskProps,
    lambdaFunction: toolHandler.lambdaFunction,
    payloadResponseOnly: true,
    retryOnServiceExceptions: true,
  });
  if (attempts > 1) {
    task.addRetry({
      errors: RETRYABLE_TOOL_ERRORS,
      maxAttempts: attempts - 1,
      interval: retryInterval ?? Duration.seconds(2),
      backoffRate: retryBackoffRate ?? 2,
    });
  }
  return task;
}

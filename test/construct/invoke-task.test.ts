/**
 * `ToolHandler.invokeTask`: a Step Functions LambdaInvoke whose result is the reply, that
 * retries the retryable errors by name and leaves the others to Catch. Read from the
 * synthesized state machine definition.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ToolHandler } from '../../lib';
import { ENV, props } from './helpers';

const app = new App();
const stack = new Stack(app, 'Flow', { env: ENV });
const tools = new ToolHandler(stack, 'Tools', props());
const refund = ToolHandler.invokeTask(stack, 'Refund', {
  toolHandler: tools,
  payload: sfn.TaskInput.fromObject({ tool: 'refund', 'args.$': '$.args', 'run_id.$': '$$.Execution.Name', call_id: 'refund' }),
  resultPath: '$.reply',
});
const denied = new sfn.Pass(stack, 'Denied');
const notFound = new sfn.Pass(stack, 'NotFound');
refund.addCatch(denied, { errors: ['ApprovalDenied'] }).addCatch(notFound, { errors: ['ToolNotFound'] });
new sfn.StateMachine(stack, 'Machine', { definitionBody: sfn.DefinitionBody.fromChainable(refund) });
const fast = ToolHandler.invokeTask(stack, 'Fast', { toolHandler: tools, retryAttempts: 5, retryInterval: Duration.seconds(1), retryBackoffRate: 1.5 });
new sfn.StateMachine(stack, 'FastMachine', { definitionBody: sfn.DefinitionBody.fromChainable(fast) });

const template = Template.fromStack(stack);

/** The state machine's definition, with the function's ARN as a placeholder. */
function definition(id: string): any {
  const machine = template.findResources('AWS::StepFunctions::StateMachine');
  const logicalId = Object.keys(machine).find((key) => key.startsWith(id))!;
  const parts = machine[logicalId].Properties.DefinitionString['Fn::Join'][1] as unknown[];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'FUNCTION_ARN')).join(''));
}

test('the task invokes the function and its result is the reply (the payload alone)', () => {
  const state = definition('Machine').States.Refund;
  expect(state).toMatchObject({
    Type: 'Task',
    Resource: 'FUNCTION_ARN',
    Parameters: { tool: 'refund', 'args.$': '$.args', 'run_id.$': '$$.Execution.Name', call_id: 'refund' },
    ResultPath: '$.reply',
  });
});

test('Retry: Lambda service exceptions, then the retryable tool errors by name, nothing else', () => {
  const state = definition('Machine').States.Refund;
  expect(state.Retry).toEqual([
    {
      ErrorEquals: ['Lambda.ClientExecutionTimeoutException', 'Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException'],
      IntervalSeconds: 2,
      MaxAttempts: 6,
      BackoffRate: 2,
    },
    {
      ErrorEquals: ['ToolFailed', 'ToolTimeout', 'CallInProgress', 'StoreUnavailable', 'RateLimited', 'Lambda.TooManyRequestsException'],
      IntervalSeconds: 2,
      MaxAttempts: 2,
      BackoffRate: 2,
    },
  ]);
  const retried = state.Retry.flatMap((r: any) => r.ErrorEquals);
  for (const name of ToolHandler.FINAL_ERRORS) expect(retried).not.toContain(name);
  expect(retried).not.toContain('States.ALL');
});

test('Catch by name: ApprovalDenied and ToolNotFound reach their states', () => {
  expect(definition('Machine').States.Refund.Catch).toEqual([
    { ErrorEquals: ['ApprovalDenied'], Next: 'Denied' },
    { ErrorEquals: ['ToolNotFound'], Next: 'NotFound' },
  ]);
});

test('retry settings: attempts count the first; interval and backoff as given', () => {
  const state = definition('FastMachine').States.Fast;
  expect(state.Retry[1]).toEqual({
    ErrorEquals: ToolHandler.RETRYABLE_ERRORS,
    IntervalSeconds: 1,
    MaxAttempts: 4,
    BackoffRate: 1.5,
  });
  expect(state).not.toHaveProperty('Parameters'); // the state's input is the envelope
});

test('retryAttempts below 1 is an error naming the prop', () => {
  expect(() => ToolHandler.invokeTask(stack, 'Bad', { toolHandler: tools, retryAttempts: 0 })).toThrow(
    'Flow/Bad: `retryAttempts` must be a whole number of at least 1, got: 0.',
  );
});

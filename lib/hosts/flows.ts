/**
 * Flows that wait for a tool's result (docs/flows.md): the Step Functions task that sends a call with
 * its task token (`waitForResult`), the grants that let the handler and the expirer complete a state
 * machine's tasks or a durable function's callbacks, and the synth check that refuses an EXPRESS
 * state machine waiting for a token (the service would refuse it at deployment or run).
 */
import { Duration, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct, IConstruct } from 'constructs';
import { failAt } from '../errors';
import { WaitForResultProps } from '../options/wait-for-result-props';

/** The Step Functions resource of an SQS task that waits for its token. */
const WAIT_FOR_TOKEN_RESOURCE = 'sqs:sendMessage.waitForTaskToken';

export interface FlowTaskOptions {
  readonly queue: sqs.IQueue;
  readonly fifo: boolean;
  readonly approvalTtlSeconds: number;
}

/** The task token and the execution's name, in each query language. */
const CONTEXT = {
  [sfn.QueryLanguage.JSON_PATH]: { taskToken: sfn.JsonPath.taskToken, executionName: sfn.JsonPath.executionName },
  [sfn.QueryLanguage.JSONATA]: { taskToken: '{% $states.context.Task.Token %}', executionName: '{% $states.context.Execution.Name %}' },
} as const;

/** The task of `ToolHandler.waitForResult`. */
export function createWaitForResult(scope: Construct, id: string, props: WaitForResultProps, options: FlowTaskOptions): tasks.SqsSendMessage {
  const path = `${scope.node.path}/${id}`;
  const language = props.queryLanguage ?? sfn.QueryLanguage.JSON_PATH;
  const jsonata = language === sfn.QueryLanguage.JSONATA;
  if (jsonata && props.resultPath !== undefined) {
    failAt(path, '`resultPath` is a JSONPath field, and `queryLanguage` is JSONATA: use `outputs` (e.g. `\'{% $merge([$states.input, { "reply": $states.result }]) %}\'`).');
  }
  if (!jsonata && props.outputs !== undefined) {
    failAt(path, '`outputs` is a JSONata field, and `queryLanguage` is JSON_PATH (the default): use `resultPath`, or set `queryLanguage: sfn.QueryLanguage.JSONATA`.');
  }
  const args = argsOf(path, props.args);
  const context = CONTEXT[language];
  const body: { [key: string]: unknown } = {
    tool: props.tool,
    args,
    ...(props.runId === undefined ? {} : { run_id: props.runId }),
    ...(props.callId === undefined ? {} : { call_id: props.callId }),
    reply_to: { kind: 'sfn', task_token: context.taskToken },
  };
  const common = {
    queue: options.queue,
    messageBody: sfn.TaskInput.fromObject(body),
    integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    taskTimeout: props.taskTimeout ?? sfn.Timeout.duration(Duration.seconds(options.approvalTtlSeconds + 3600)),
    heartbeatTimeout: props.heartbeatTimeout,
    comment: props.comment,
    // One message group per execution: its calls stay in order, other executions' do not wait.
    ...(options.fifo ? { messageGroupId: context.executionName } : {}),
  };
  return jsonata
    ? tasks.SqsSendMessage.jsonata(scope, id, { ...common, outputs: props.outputs })
    : tasks.SqsSendMessage.jsonPath(scope, id, { ...common, resultPath: props.resultPath });
}

/** The call's args as the message body holds them: an object (JsonPath references and all), or the task input's value. */
function argsOf(path: string, given: WaitForResultProps['args']): unknown {
  const value = given instanceof sfn.TaskInput ? given.value : (given ?? {});
  if (typeof value === 'string' && !Token.isUnresolved(value)) {
    failAt(path, '`args` must be an object, `sfn.TaskInput.fromObject({...})` or `sfn.TaskInput.fromJsonPathAt(path)`; a text is not a JSON object.');
  }
  if (Array.isArray(value)) failAt(path, '`args` must be an object of named args, not an array.');
  return value;
}

/** Whether `stateMachine` was made EXPRESS in this app (an imported one cannot be told). */
function isExpress(stateMachine: IConstruct): boolean {
  const cfn = stateMachine.node.defaultChild;
  return cfn instanceof sfn.CfnStateMachine && cfn.stateMachineType === sfn.StateMachineType.EXPRESS;
}

function expressRefusal(what: string): string {
  return (
    `${what} is an EXPRESS state machine, and Express workflows cannot wait for a task token ` +
    '(`.waitForTaskToken`): make it a STANDARD state machine (the default), or call the tool with `ToolHandler.invokeTask` there.'
  );
}

/** `allowTaskResponseFrom`: `states:SendTaskSuccess` and `SendTaskFailure` on that state machine, for each grantee. */
export function allowTaskResponses(handler: IConstruct, stateMachine: sfn.IStateMachine, grantees: readonly iam.IGrantable[]): void {
  if (isExpress(stateMachine)) failAt(handler.node.path, expressRefusal(`allowTaskResponseFrom: ${stateMachine.node.path}`));
  for (const grantee of grantees) {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'],
      resourceArns: [stateMachine.stateMachineArn],
    });
  }
}

/** `allowCallbacksFrom`: `lambda:SendDurableExecutionCallbackSuccess` and `...Failure` on that function and its versions. */
export function allowDurableCallbacks(durableFunction: lambda.IFunction, grantees: readonly iam.IGrantable[]): void {
  for (const grantee of grantees) {
    iam.Grant.addToPrincipal({
      grantee,
      actions: ['lambda:SendDurableExecutionCallbackSuccess', 'lambda:SendDurableExecutionCallbackFailure'],
      resourceArns: [durableFunction.functionArn, `${durableFunction.functionArn}:*`],
    });
  }
}

/**
 * Synth check: no EXPRESS state machine of the app holds a task that waits for a token on `queue`
 * (one made by `waitForResult`, or by hand).
 */
export function expressWaiters(handler: IConstruct, queue: sqs.IQueue): string[] {
  const errors: string[] = [];
  const queueRef = JSON.stringify(Stack.of(queue).resolve(queue.queueUrl));
  for (const construct of handler.node.root.node.findAll()) {
    if (!(construct instanceof sfn.CfnStateMachine) || construct.stateMachineType !== sfn.StateMachineType.EXPRESS) continue;
    const definition = JSON.stringify(Stack.of(construct).resolve(construct.definitionString ?? construct.definition ?? ''));
    const sendsToQueue = definition.includes(queueRef) || definition.includes(queueRef.replace(/"/g, '\\"'));
    if (definition.includes(WAIT_FOR_TOKEN_RESOURCE) && sendsToQueue) {
      errors.push(expressRefusal(construct.node.scope?.node.path ?? construct.node.path));
    }
  }
  return errors;
}

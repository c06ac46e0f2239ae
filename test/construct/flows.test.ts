/**
 * Flows that wait for a tool's result, in the synthesized template: `waitForResult` is an SQS task
 * that waits for its token, whose message is the envelope with `reply_to` filled from the context;
 * `allowTaskResponseFrom` and `allowCallbacksFrom` grant the handler and the expirer the completion
 * on that state machine or function only; an EXPRESS state machine that waits for the handler's
 * token is refused at synth. The definition is valid ASL (asl-validator).
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ENV, toolStack, unbundledApp } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const aslValidator = require('asl-validator') as (definition: unknown) => { isValid: boolean; errors: unknown[] };

function flowStack(express = false) {
  const app = unbundledApp();
  const { stack, tools } = toolStack(app, express ? 'Express' : 'Flow', { approvalTtl: Duration.hours(2) });
  const refund = tools.waitForResult(stack, 'Refund', {
    tool: 'refund',
    args: sfn.TaskInput.fromObject({ orderId: sfn.JsonPath.stringAt('$.orderId') }),
    runId: sfn.JsonPath.executionName,
    callId: 'refund',
    resultPath: '$.reply',
  });
  refund.addCatch(new sfn.Fail(stack, 'Denied', { error: 'Denied' }), { errors: ['ToolHandler.ApprovalDenied'] });
  refund.addCatch(new sfn.Fail(stack, 'Expired', { error: 'Expired' }), { errors: ['ToolHandler.ApprovalExpired'] });
  const machine = new sfn.StateMachine(stack, 'Machine', {
    definitionBody: sfn.DefinitionBody.fromChainable(refund.next(new sfn.Succeed(stack, 'Done'))),
    ...(express ? { stateMachineType: sfn.StateMachineType.EXPRESS } : {}),
  });
  return { app, stack, tools, machine };
}

/** The state machine's definition, with every CloudFormation reference as a placeholder. */
function definitionOf(template: Template): any {
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as any[];
  const parts = machine.Properties.DefinitionString['Fn::Join'][1] as unknown[];
  return JSON.parse(parts.map((p: any) => (typeof p === 'string' ? p : p.Ref === 'AWS::Partition' ? 'aws' : 'REF')).join(''));
}

const { stack, tools, machine } = flowStack();
tools.allowTaskResponseFrom(machine);
const durable = new lambda.Function(stack, 'Durable', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler=async()=>{}') });
tools.allowCallbacksFrom(durable);
const template = Template.fromStack(stack);

test('waitForResult sends the envelope with the task token to the queue and waits for it, for the approval TTL plus an hour', () => {
  const definition = definitionOf(template);
  expect(aslValidator(definition)).toMatchObject({ isValid: true });
  expect(definition.States.Refund).toMatchObject({
    Type: 'Task',
    Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
    TimeoutSeconds: 2 * 3600 + 3600,
    ResultPath: '$.reply',
    Parameters: {
      QueueUrl: 'REF',
      MessageBody: {
        tool: 'refund',
        args: { 'orderId.$': '$.orderId' },
        'run_id.$': '$$.Execution.Name',
        call_id: 'refund',
        reply_to: { kind: 'sfn', 'task_token.$': '$$.Task.Token' },
      },
    },
  });
  expect(definition.States.Refund.Catch.map((c: any) => c.ErrorEquals)).toEqual([['ToolHandler.ApprovalDenied'], ['ToolHandler.ApprovalExpired']]);
});

const HANDLER_POLICY = 'ToolsServiceRoleDefaultPolicy';
const EXPIRER_POLICY = 'ToolsApprovalsExpirerRoleDefaultPolicy';

/** The statements of the role policies whose id starts with `prefix`. */
function statementsOf(prefix: string): any[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.entries(policies)
    .filter(([id]) => id.startsWith(prefix))
    .flatMap(([, p]: [string, any]) => p.Properties.PolicyDocument.Statement);
}

test('allowTaskResponseFrom lets the handler and the expirer send task responses to that state machine only', () => {
  for (const prefix of [HANDLER_POLICY, EXPIRER_POLICY]) {
    const grants = statementsOf(prefix).filter((s) => JSON.stringify(s.Action ?? null).includes('states:'));
    expect(grants).toEqual([
      expect.objectContaining({ Action: ['states:SendTaskSuccess', 'states:SendTaskFailure'], Effect: 'Allow', Resource: { Ref: stack.getLogicalId(machine.node.defaultChild as sfn.CfnStateMachine) } }),
    ]);
  }
  // Nobody else may: the state machine's own role only sends to the queue.
  const machineGrants = statementsOf('MachineRoleDefaultPolicy').flatMap((s) => [s.Action ?? []].flat());
  expect(machineGrants).not.toContain('states:SendTaskSuccess');
  expect(machineGrants).toContain('sqs:SendMessage');
});

test('allowCallbacksFrom lets the handler and the expirer complete that function\'s callbacks only', () => {
  for (const prefix of [HANDLER_POLICY, EXPIRER_POLICY]) {
    const grants = statementsOf(prefix).filter((s) => JSON.stringify(s.Action ?? null).includes('DurableExecutionCallback'));
    expect(grants).toHaveLength(1);
    expect(grants[0].Action).toEqual(['lambda:SendDurableExecutionCallbackSuccess', 'lambda:SendDurableExecutionCallbackFailure']);
    expect(JSON.stringify(grants[0].Resource)).toContain(stack.getLogicalId(durable.node.defaultChild as lambda.CfnFunction));
    expect(JSON.stringify(grants[0].Resource)).not.toContain('"*"');
  }
});

test('an EXPRESS state machine that waits for the handler\'s token is a synth error that says what to do', () => {
  const express = flowStack(true);
  expect(() => Template.fromStack(express.stack)).toThrow(/EXPRESS state machine, and Express workflows cannot wait for a task token.*STANDARD/s);
  expect(() => express.tools.allowTaskResponseFrom(express.machine)).toThrow(/allowTaskResponseFrom: .*Machine is an EXPRESS state machine/);
});

test('a STANDARD state machine beside an EXPRESS one that does not wait for a token synthesizes', () => {
  const app = unbundledApp();
  const { stack: s } = toolStack(app, 'Mixed');
  new sfn.StateMachine(s, 'Quick', { definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(s, 'P')), stateMachineType: sfn.StateMachineType.EXPRESS });
  expect(() => Template.fromStack(s)).not.toThrow();
  expect(Stack.of(s).region).toBe(ENV.region);
});

test('args must be an object or a JsonPath reference', () => {
  const { stack: s, tools: t } = toolStack(unbundledApp(), 'Text');
  expect(() => t.waitForResult(s, 'Bad', { tool: 'add', args: sfn.TaskInput.fromText('a b') })).toThrow(
    /`args` must be an object, `sfn.TaskInput.fromObject\(\{...\}\)` or `sfn.TaskInput.fromJsonPathAt\(path\)`/,
  );
  expect(() => t.waitForResult(s, 'List', { tool: 'add', args: sfn.TaskInput.fromObject([1, 2] as any) })).toThrow(/`args` must be an object of named args, not an array/);
  expect(() => t.waitForResult(s, 'Path', { tool: 'add', args: sfn.TaskInput.fromJsonPathAt('$.args') })).not.toThrow();
});

/** The state `name` of the stack's only state machine. */
function stateOf(s: Stack, name: string): any {
  const template = Template.fromStack(s);
  return { definition: definitionOf(template), state: definitionOf(template).States[name] };
}

test('args may be a plain object whose values are JsonPath references: the same message as fromObject', () => {
  const { stack: s, tools: t } = toolStack(unbundledApp(), 'Plain');
  const task = t.waitForResult(s, 'Refund', { tool: 'refund', args: { orderId: sfn.JsonPath.stringAt('$.orderId'), note: 'late' } });
  new sfn.StateMachine(s, 'Machine', { definitionBody: sfn.DefinitionBody.fromChainable(task) });
  const { definition, state } = stateOf(s, 'Refund');
  expect(aslValidator(definition)).toMatchObject({ isValid: true });
  expect(state.Parameters.MessageBody).toEqual({
    tool: 'refund',
    args: { 'orderId.$': '$.orderId', note: 'late' },
    reply_to: { kind: 'sfn', 'task_token.$': '$$.Task.Token' },
  });
});

describe('a JSONata state machine', () => {
  function jsonataStack(name: string, fifo = false) {
    const { stack: s, tools: t } = toolStack(unbundledApp(), name, fifo ? { fifo: true } : {});
    const task = t.waitForResult(s, 'Refund', {
      tool: 'refund',
      args: { orderId: '{% $states.input.orderId %}' },
      runId: '{% $states.context.Execution.Name %}',
      queryLanguage: sfn.QueryLanguage.JSONATA,
      outputs: '{% $merge([$states.input, { "reply": $states.result }]) %}',
    });
    task.addCatch(new sfn.Fail(s, 'Denied', { error: 'Denied' }), { errors: ['ToolHandler.ApprovalDenied'] });
    const machine = new sfn.StateMachine(s, 'Machine', { queryLanguage: sfn.QueryLanguage.JSONATA, definitionBody: sfn.DefinitionBody.fromChainable(task) });
    t.allowTaskResponseFrom(machine);
    return s;
  }

  test('waitForResult with queryLanguage JSONATA sends the envelope with $states.context.Task.Token in Arguments', () => {
    const { definition, state } = stateOf(jsonataStack('Jsonata'), 'Refund');
    expect(definition.QueryLanguage).toBe('JSONata');
    expect(aslValidator(definition)).toMatchObject({ isValid: true });
    expect(state).toMatchObject({
      Type: 'Task',
      Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
      Arguments: {
        QueueUrl: 'REF',
        MessageBody: {
          tool: 'refund',
          args: { orderId: '{% $states.input.orderId %}' },
          run_id: '{% $states.context.Execution.Name %}',
          reply_to: { kind: 'sfn', task_token: '{% $states.context.Task.Token %}' },
        },
      },
      Output: '{% $merge([$states.input, { "reply": $states.result }]) %}',
    });
    expect(state.Parameters).toBeUndefined();
    expect(JSON.stringify(state)).not.toContain('$$.');
  });

  test("on a FIFO queue the message group is the execution's name, as JSONata", () => {
    const { state } = stateOf(jsonataStack('JsonataFifo', true), 'Refund');
    expect(state.Arguments.MessageGroupId).toBe('{% $states.context.Execution.Name %}');
  });

  test('resultPath with JSONATA, and outputs with JSONPath, are synth errors that name the field to use', () => {
    const { stack: s, tools: t } = toolStack(unbundledApp(), 'Mixed');
    expect(() => t.waitForResult(s, 'A', { tool: 'refund', queryLanguage: sfn.QueryLanguage.JSONATA, resultPath: '$.reply' })).toThrow(
      /`resultPath` is a JSONPath field, and `queryLanguage` is JSONATA: use `outputs`/,
    );
    expect(() => t.waitForResult(s, 'B', { tool: 'refund', outputs: '{% $states.result %}' })).toThrow(
      /`outputs` is a JSONata field, and `queryLanguage` is JSON_PATH \(the default\): use `resultPath`/,
    );
  });

  test('an EXPRESS JSONata state machine that waits for the token is refused too', () => {
    const { stack: s, tools: t } = toolStack(unbundledApp(), 'JsonataExpress');
    const task = t.waitForResult(s, 'Refund', { tool: 'refund', queryLanguage: sfn.QueryLanguage.JSONATA });
    new sfn.StateMachine(s, 'Machine', {
      queryLanguage: sfn.QueryLanguage.JSONATA,
      stateMachineType: sfn.StateMachineType.EXPRESS,
      definitionBody: sfn.DefinitionBody.fromChainable(task),
    });
    expect(() => Template.fromStack(s)).toThrow(/EXPRESS state machine, and Express workflows cannot wait for a task token/);
  });
});

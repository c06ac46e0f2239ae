import * as sfn from 'aws-cdk-lib/aws-stepfunctions';

/**
 * Props of `ToolHandler.waitForResult`: a Step Functions task that sends one tool call to the
 * handler's queue and waits, without polling, for its result, approval included (docs/flows.md).
 */
export interface WaitForResultProps {
  /** The tool to call. */
  readonly tool: string;

  /**
   * The tool's args: `sfn.TaskInput.fromObject({...})` (whose values may be JsonPath references) or
   * `sfn.TaskInput.fromJsonPathAt('$.args')`.
   *
   * @default - no args (`{}`)
   */
  readonly args?: sfn.TaskInput;

  /**
   * The call's `run_id` (a literal, or a JsonPath reference such as `sfn.JsonPath.executionName`).
   *
   * @default - derived by the handler from the queue message
   */
  readonly runId?: string;

  /**
   * The call's `call_id`.
   *
   * @default - derived by the handler from the queue message
   */
  readonly callId?: string;

  /**
   * How long the task waits for the result. An approval waits at most the approval TTL; the expirer
   * then fails the task with `ToolHandler.ApprovalExpired`.
   *
   * @default - the approval TTL plus one hour
   */
  readonly taskTimeout?: sfn.Timeout;

  /**
   * Heartbeat timeout of the task. The handler sends no heartbeats: set it only longer than the
   * approval TTL.
   *
   * @default - none
   */
  readonly heartbeatTimeout?: sfn.Timeout;

  /**
   * Where in the state's input the reply goes (JsonPath).
   *
   * @default '$': the reply replaces the input
   */
  readonly resultPath?: string;

  /**
   * A comment for the state.
   *
   * @default - none
   */
  readonly comment?: string;
}

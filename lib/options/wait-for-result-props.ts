import * as sfn from 'aws-cdk-lib/aws-stepfunctions';

/**
 * Props of `ToolHandler.waitForResult`: a Step Functions task that sends one tool call to the
 * handler's queue and waits, without polling, for its result, approval included (docs/flows.md).
 */
export interface WaitForResultProps {
  /** The tool to call. */
  readonly tool: string;

  /**
   * The tool's args: an object whose values may be JsonPath references (or JSONata expressions, with
   * `queryLanguage` JSONATA), `sfn.TaskInput.fromObject({...})`, or `sfn.TaskInput.fromJsonPathAt('$.args')`.
   *
   * @default - no args (`{}`)
   */
  readonly args?: sfn.TaskInput | { [key: string]: any };

  /**
   * The query language of the task: JSONATA in a state machine whose query language is JSONata
   * (a JSONata state machine cannot hold JSONPath states). With JSONATA, `args`, `runId` and `callId`
   * may hold JSONata expressions (`'{% $states.input.orderId %}'`), the token is
   * `$states.context.Task.Token`, and `outputs` replaces `resultPath`.
   *
   * @default sfn.QueryLanguage.JSON_PATH
   */
  readonly queryLanguage?: sfn.QueryLanguage;

  /**
   * The state's output, with `queryLanguage` JSONATA (e.g.
   * `'{% $merge([$states.input, { "reply": $states.result }]) %}'`).
   *
   * @default - the reply
   */
  readonly outputs?: any;

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
   * Where in the state's input the reply goes (JsonPath; with `queryLanguage` JSONATA, use `outputs`).
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

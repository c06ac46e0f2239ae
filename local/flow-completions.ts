/**
 * The two APIs that complete a waiting flow, as the local endpoints (local/endpoints.ts) serve them
 * once a request has passed their front: Step Functions' `SendTaskSuccess` / `SendTaskFailure` (JSON
 * 1.0, `X-Amz-Target: AWSStepFunctions.*`) and Lambda's `SendDurableExecutionCallbackSuccess` /
 * `...Failure` (REST, `POST /2025-12-01/durable-execution-callbacks/{id}/succeed|fail`). Each is read
 * into one `EngineCompletion` and answered as AWS answers the outcome: taken, or refused as closed
 * (`TaskTimedOut`, `CallbackTimeoutException`) or unknown (`TaskDoesNotExist`, `ResourceNotFoundException`).
 */
import type { ServerResponse } from 'node:http';
import { answerJson, AWS_JSON_1_0, jsonObjectOf } from './http-request';

/** One completion as the engine received it. */
export interface EngineCompletion {
  readonly engine: 'sfn' | 'durable';
  /** The task token or callback id (tests only: it is a credential). */
  readonly id: string;
  readonly ok: boolean;
  /** Success: the output (sfn) or the result's text (durable). */
  readonly output?: string;
  /** Failure: the error name (sfn `error`, durable `ErrorType`). */
  readonly error?: string;
  readonly cause?: string;
  /** Durable failure: `ErrorData`. */
  readonly errorData?: string;
}

/** What became of a completion: a waiting flow took it, its flow has closed, or no flow ever waited with that id. */
export type CompletionOutcome = 'taken' | 'closed' | 'unknown';

/** Hands a completion to whoever waits for it. */
export type CompleteFlow = (completion: EngineCompletion) => Promise<CompletionOutcome>;

/** The Step Functions operations served, by `X-Amz-Target`. */
export const TASK_COMPLETIONS: ReadonlyMap<string, 'SendTaskSuccess' | 'SendTaskFailure'> = new Map([
  ['AWSStepFunctions.SendTaskSuccess', 'SendTaskSuccess'],
  ['AWSStepFunctions.SendTaskFailure', 'SendTaskFailure'],
]);

/** A durable callback's completion: its id, and `succeed` or `fail`. */
export const DURABLE_CALLBACK_PATH = /^\/2025-12-01\/durable-execution-callbacks\/([^/]+)\/(succeed|fail)$/;

export async function serveTaskCompletion(
  operation: 'SendTaskSuccess' | 'SendTaskFailure',
  body: string,
  res: ServerResponse,
  complete: CompleteFlow,
): Promise<void> {
  const input = jsonObjectOf<{ taskToken?: unknown; output?: string; error?: string; cause?: string }>(body || '{}');
  if (!input) return taskError(res, 'InvalidParameterValue', 'The request is not a JSON object.');
  if (typeof input.taskToken !== 'string' || input.taskToken.length === 0) return taskError(res, 'InvalidToken', 'Invalid token');
  const ok = operation === 'SendTaskSuccess';
  const outcome = await complete({
    engine: 'sfn',
    id: input.taskToken,
    ok,
    ...(ok ? { output: input.output } : { error: input.error, cause: input.cause }),
  });
  if (outcome === 'taken') return answerJson(res, 200, {}, {}, AWS_JSON_1_0);
  // AWS: a late or second response gets TaskTimedOut; a token no task ever had, TaskDoesNotExist.
  return taskError(res, outcome === 'closed' ? 'TaskTimedOut' : 'TaskDoesNotExist', 'Task Timed Out');
}

export async function serveDurableCallback(callbackId: string, ok: boolean, body: string, res: ServerResponse, complete: CompleteFlow): Promise<void> {
  let completion: EngineCompletion;
  if (ok) completion = { engine: 'durable', id: callbackId, ok, output: body };
  else {
    const error = jsonObjectOf<{ ErrorType?: string; ErrorMessage?: string; ErrorData?: string }>(body || '{}');
    if (!error) {
      return answerJson(res, 400, { Type: 'User', message: 'Could not parse request body into json' }, { 'x-amzn-errortype': 'InvalidRequestContentException' });
    }
    completion = { engine: 'durable', id: callbackId, ok, error: error.ErrorType, cause: error.ErrorMessage, errorData: error.ErrorData };
  }
  const outcome = await complete(completion);
  if (outcome === 'taken') return answerJson(res, 200, {});
  const closed = outcome === 'closed';
  answerJson(
    res,
    400,
    { Type: 'User', message: closed ? 'The callback has timed out or completed.' : 'No such callback.' },
    { 'x-amzn-errortype': closed ? 'CallbackTimeoutException' : 'ResourceNotFoundException' },
  );
}

/** A Step Functions error as its JSON 1.0 protocol sends it. */
function taskError(res: ServerResponse, type: string, message: string): void {
  answerJson(res, 400, { __type: `com.amazonaws.sfn#${type}`, message }, {}, AWS_JSON_1_0);
}

/**
 * Stands in for the two APIs that complete a waiting flow, in AWS's shapes, on 127.0.0.1: Step
 * Functions' `SendTaskSuccess` / `SendTaskFailure` (JSON 1.0, `X-Amz-Target: AWSStepFunctions.*`)
 * and Lambda's `SendDurableExecutionCallbackSuccess` / `...Failure` (REST,
 * `POST /2025-12-01/durable-execution-callbacks/{id}/succeed|fail`). Point the SDK at it with
 * `AWS_ENDPOINT_URL_SFN` and `AWS_ENDPOINT_URL_LAMBDA`. A token or callback id is completed once:
 * a second completion, or one of a flow that was never waiting or has closed, is refused as AWS
 * refuses it (`TaskTimedOut`, `TaskDoesNotExist`, `CallbackTimeoutException`), so the handler's
 * record of a closed flow is exercised for real. Who waits registers first (`waitForTask`,
 * `waitForCallback`), or an `onCompletion` forwards completions to an interpreter.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from './http-request';
import { listenOnLoopback, type LoopbackServer } from './loopback-server';

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

export interface FlowEnginesStandIn extends LoopbackServer {
  /** A task waiting with this token: resolves with its one completion. */
  waitForTask(token: string): Promise<EngineCompletion>;
  /** A durable callback waiting with this id: resolves with its one completion. */
  waitForCallback(callbackId: string): Promise<EngineCompletion>;
  /** The flow stops waiting (it timed out): a later completion is refused as closed. */
  timeOut(id: string): void;
  /** Every completion request received, accepted or refused, in order. */
  readonly received: readonly EngineCompletion[];
}

export interface FlowEnginesOptions {
  /**
   * Takes a completion of an id nobody registered (e.g. forwards it to an interpreter); returns
   * false when no flow waits for it. @default - refused as unknown
   */
  readonly onCompletion?: (completion: EngineCompletion) => boolean | Promise<boolean>;
}

const MAX_BODY_BYTES = 512 * 1024;
const DURABLE_PATH = /^\/2025-12-01\/durable-execution-callbacks\/([^/]+)\/(succeed|fail)$/;

export async function startFlowEngines(options: FlowEnginesOptions = {}): Promise<FlowEnginesStandIn> {
  const waiting = new Map<string, (completion: EngineCompletion) => void>();
  const finished = new Set<string>();
  const received: EngineCompletion[] = [];

  const register = (id: string) =>
    new Promise<EngineCompletion>((resolve) => {
      waiting.set(id, resolve);
    });

  /** Whether a flow took the completion; refused otherwise. */
  const take = async (completion: EngineCompletion): Promise<'taken' | 'closed' | 'unknown'> => {
    received.push(completion);
    const waiter = waiting.get(completion.id);
    if (waiter) {
      waiting.delete(completion.id);
      finished.add(completion.id);
      waiter(completion);
      return 'taken';
    }
    if (finished.has(completion.id)) return 'closed';
    if (options.onCompletion && (await options.onCompletion(completion))) {
      finished.add(completion.id);
      return 'taken';
    }
    return 'unknown';
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === undefined) return answer(res, 413, { message: 'request too large' });
    const target = String(req.headers['x-amz-target'] ?? '');
    if (req.method === 'POST' && target.startsWith('AWSStepFunctions.')) return sfn(res, target.slice('AWSStepFunctions.'.length), body);
    const durable = DURABLE_PATH.exec(req.url ?? '');
    if (req.method === 'POST' && durable) return callback(res, decodeURIComponent(durable[1]), durable[2] === 'succeed', body);
    answer(res, 404, { message: 'not a Step Functions task response or durable callback request' });
  }

  async function sfn(res: ServerResponse, operation: string, body: Buffer): Promise<void> {
    const input = JSON.parse(body.toString('utf8') || '{}') as { taskToken?: string; output?: string; error?: string; cause?: string };
    if (operation !== 'SendTaskSuccess' && operation !== 'SendTaskFailure') return sfnError(res, 'UnknownOperationException', operation);
    if (typeof input.taskToken !== 'string' || input.taskToken.length === 0) return sfnError(res, 'InvalidToken', 'Invalid token');
    const ok = operation === 'SendTaskSuccess';
    const outcome = await take({
      engine: 'sfn',
      id: input.taskToken,
      ok,
      ...(ok ? { output: input.output } : { error: input.error, cause: input.cause }),
    });
    if (outcome === 'taken') return answer(res, 200, {}, 'application/x-amz-json-1.0');
    // AWS: a late or second response gets TaskTimedOut; a token no task ever had, TaskDoesNotExist.
    return sfnError(res, outcome === 'closed' ? 'TaskTimedOut' : 'TaskDoesNotExist', 'Task Timed Out');
  }

  async function callback(res: ServerResponse, callbackId: string, ok: boolean, body: Buffer): Promise<void> {
    let completion: EngineCompletion;
    if (ok) completion = { engine: 'durable', id: callbackId, ok, output: body.toString('utf8') };
    else {
      const error = JSON.parse(body.toString('utf8') || '{}') as { ErrorType?: string; ErrorMessage?: string; ErrorData?: string };
      completion = { engine: 'durable', id: callbackId, ok, error: error.ErrorType, cause: error.ErrorMessage, errorData: error.ErrorData };
    }
    const outcome = await take(completion);
    if (outcome === 'taken') return answer(res, 200, {});
    res.writeHead(400, { 'content-type': 'application/json', 'x-amzn-errortype': outcome === 'closed' ? 'CallbackTimeoutException' : 'ResourceNotFoundException' });
    res.end(JSON.stringify({ Type: 'User', message: outcome === 'closed' ? 'The callback has timed out or completed.' : 'No such callback.' }));
  }

  const loopback = await listenOnLoopback(server);
  return {
    ...loopback,
    waitForTask: register,
    waitForCallback: register,
    timeOut(id) {
      waiting.delete(id);
      finished.add(id);
    },
    received,
  };
}

function answer(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(JSON.stringify(body));
}

/** A Step Functions error as its JSON 1.0 protocol sends it. */
function sfnError(res: ServerResponse, type: string, message: string): void {
  answer(res, 400, { __type: `com.amazonaws.sfn#${type}`, message }, 'application/x-amz-json-1.0');
}

/**
 * The engines that complete a waiting flow: Step Functions (`SendTaskSuccess`, `SendTaskFailure`)
 * and Lambda durable functions (`SendDurableExecutionCallbackSuccess`, `...Failure`). Their SDK
 * clients are loaded on the first completion, so a handler that serves no flow never loads them;
 * they honour `AWS_ENDPOINT_URL_SFN` and `AWS_ENDPOINT_URL_LAMBDA`. No error of theirs is passed on
 * with its message: an engine may quote the token it refused.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SFNClient } from '@aws-sdk/client-sfn';
import { resolveRegion } from '../config';
import type { ReplyTo } from './reply-to';

/** What a completion says: success with the reply's JSON, or failure with an error name and its cause. */
export type Completion = { readonly ok: true; readonly output: string } | { readonly ok: false; readonly error: string; readonly cause: string };

/** Sends one completion to the engine the reply_to names. */
export interface FlowEngines {
  complete(replyTo: ReplyTo, completion: Completion): Promise<void>;
}

/**
 * Errors by which an engine says the flow has closed (timed out, finished, or never was): a
 * completion then is recorded as such, never retried.
 */
export const FLOW_CLOSED_ERRORS: ReadonlySet<string> = new Set([
  'TaskTimedOut',
  'TaskDoesNotExist',
  'InvalidToken',
  'CallbackTimeoutException',
  'ResourceNotFoundException',
]);

/** Step Functions' and durable callbacks' limits on `error` and `cause`, in characters. */
const MAX_ERROR = 256;
const MAX_CAUSE = 32_768;

let sfnClient: SFNClient | undefined;
let lambdaClient: LambdaClient | undefined;

/** The engines as AWS serves them, through clients made once per container. */
export const awsFlowEngines: FlowEngines = {
  async complete(replyTo, completion) {
    const error = completion.ok ? undefined : completion.error.slice(0, MAX_ERROR);
    const cause = completion.ok ? undefined : completion.cause.slice(0, MAX_CAUSE);
    if (replyTo.kind === 'sfn') {
      const sdk = require('@aws-sdk/client-sfn') as typeof import('@aws-sdk/client-sfn');
      const client = (sfnClient ??= new sdk.SFNClient({ region: resolveRegion() }));
      if (completion.ok) await client.send(new sdk.SendTaskSuccessCommand({ taskToken: replyTo.taskToken, output: completion.output }));
      else await client.send(new sdk.SendTaskFailureCommand({ taskToken: replyTo.taskToken, error, cause }));
      return;
    }
    const sdk = require('@aws-sdk/client-lambda') as typeof import('@aws-sdk/client-lambda');
    const client = (lambdaClient ??= new sdk.LambdaClient({ region: resolveRegion() }));
    if (completion.ok) {
      await client.send(new sdk.SendDurableExecutionCallbackSuccessCommand({ CallbackId: replyTo.callbackId, Result: Buffer.from(completion.output, 'utf8') }));
      return;
    }
    await client.send(
      new sdk.SendDurableExecutionCallbackFailureCommand({
        CallbackId: replyTo.callbackId,
        // The durable SDK replaces ErrorType when the flow reads it: the name travels in ErrorData too.
        Error: { ErrorType: error, ErrorMessage: cause, ErrorData: JSON.stringify({ error, cause }) },
      }),
    );
  },
};

/** Forgets the clients, so the next completion makes them from the environment as it is then. For tests. */
export function resetFlowEngineClients(): void {
  sfnClient?.destroy();
  lambdaClient?.destroy();
  sfnClient = undefined;
  lambdaClient = undefined;
}

import type { LambdaClient } from '@aws-sdk/client-lambda';
import { StoreMisconfigured, StoreUnavailable, type ToolHandlerError } from '../errors';
import { ENV } from '../construct-contract';
import { resolveRegion } from '../config';
import type {
  HandlerApprovalStore,
  ClaimInput,
  ClaimOutcome,
  CreateApprovalInput,
  CreateApprovalOutcome,
} from '../stores/types';
import type { EngineRequest, EngineResponse } from './engine-protocol';
import { fromWireError } from './wire-errors';

export interface EngineApprovalsProps {
  /** Name or ARN of the approvals engine function. */
  readonly functionName: string;
  /** @default - one client per container, made on the first approval; the SDK honours `AWS_ENDPOINT_URL_LAMBDA` */
  readonly client?: LambdaClient;
}

/** Loaded on the first approval: plain calls never pay for loading the Lambda client. */
function lambdaSdk(): typeof import('@aws-sdk/client-lambda') {
  return require('@aws-sdk/client-lambda') as typeof import('@aws-sdk/client-lambda');
}

let sharedClient: LambdaClient | undefined;

/**
 * A tool handler's approvals, kept by the approvals engine function: each operation is one
 * request-response invoke. The engine's errors come back as the same errors; an engine that is
 * throttled, failing or unreachable is a `StoreUnavailable` (retryable); one that does not exist or
 * that this function may not invoke is a `StoreMisconfigured`, which no retry can fix.
 */
export class EngineApprovals implements HandlerApprovalStore {
  constructor(private readonly props: EngineApprovalsProps) {}

  async create(input: CreateApprovalInput): Promise<CreateApprovalOutcome> {
    const response = await this.invoke({
      op: 'create',
      tool: input.tool,
      args: input.args,
      run_id: input.runId,
      call_id: input.callId,
      ...(input.requestedBy === undefined ? {} : { requested_by: input.requestedBy }),
      ...(input.flow === 'sfn' || input.flow === 'durable' ? { flow: input.flow } : {}),
      ...(input.trace === undefined ? {} : { trace: input.trace }),
    });
    return { created: response.created === true, record: response.record! };
  }

  async claim(approvalId: string, input: ClaimInput): Promise<ClaimOutcome> {
    const token = input.token!;
    const response = await this.invoke({
      op: 'claim',
      approval_id: approvalId,
      token,
      until: input.until,
      ...(input.allowedTools === undefined ? {} : { tools: [...input.allowedTools] }),
      run_id_prefix: input.runIdPrefix,
      requested_by: input.requestedBy,
    });
    return response.claimed ? { claimed: true, record: response.record!, token } : { claimed: false, record: response.record };
  }

  async release(approvalId: string, token: string): Promise<void> {
    await this.invoke({ op: 'release', approval_id: approvalId, token });
  }

  async complete(approvalId: string, token: string, result: unknown): Promise<void> {
    await this.invoke({ op: 'complete', approval_id: approvalId, token, result });
  }

  private async invoke(request: EngineRequest): Promise<Extract<EngineResponse, { ok: true }>> {
    const { InvokeCommand, LambdaClient } = lambdaSdk();
    const client =
      this.props.client ??
      (sharedClient ??= new LambdaClient({
        region: resolveRegion(),
        requestHandler: { connectionTimeout: 3000, requestTimeout: 10_000, throwOnRequestTimeout: true },
      }));
    let output;
    try {
      output = await client.send(
        new InvokeCommand({ FunctionName: this.props.functionName, Payload: Buffer.from(JSON.stringify(request)) }),
      );
    } catch (error) {
      throw this.failure(request.op, error);
    }
    const text = output.Payload ? Buffer.from(output.Payload).toString('utf8') : '';
    if (output.FunctionError) throw this.unavailable(request.op, `the function failed (${output.FunctionError}): ${text}`);
    let response: EngineResponse;
    try {
      response = JSON.parse(text) as EngineResponse;
    } catch {
      throw this.unavailable(request.op, `it answered something that is not JSON: ${text.slice(0, 200)}`);
    }
    if (!response.ok) throw fromWireError(response.error, 'The approvals engine');
    return response;
  }

  private failure(op: string, error: unknown): ToolHandlerError {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const fix = misconfiguration(error);
    if (fix === undefined) return this.unavailable(op, detail, error);
    return new StoreMisconfigured(
      `The approvals engine (${this.props.functionName}) cannot serve ${op} (${detail}): ${fix} Retrying cannot help.`,
      { cause: error },
    );
  }

  private unavailable(op: string, detail: string, cause?: unknown): ToolHandlerError {
    return new StoreUnavailable(`The approvals engine (${this.props.functionName}) failed during ${op}: ${detail}; retry later.`, {
      cause,
    });
  }
}

/** What to fix when the Invoke itself says the engine is not set up for this function; undefined otherwise. */
function misconfiguration(error: unknown): string | undefined {
  switch ((error as { name?: unknown } | null)?.name) {
    case 'ResourceNotFoundException':
      return (
        'no such function in this account and region. Deploy the stack that makes it, or set ' +
        `${ENV.approvalsEngine} to the engine your ToolHandler made.`
      );
    case 'AccessDeniedException':
      return (
        "this function's role may not invoke it. The construct grants the handler lambda:InvokeFunction on its own " +
        "owner's engine only, so another owner's engine, a permissions boundary or a service control policy refuses."
      );
    default:
      return undefined;
  }
}

import type { Context } from 'aws-lambda';
import { checkSeconds, readAllowlist, readCount, readSeconds } from './config';
import { configError, ToolTimeout } from './errors';
import { HOSTS, type HostAnswer } from './events/hosts';
import type { Host } from './events/host';
import { startInvocation, type HandlerSettings } from './events/invocation';
import { ToolExecutor } from './executor';
import { writeLogLines } from './log';
import { markWithManifest } from './manifest';
import { DEFAULT_RESULT_EXPIRY_DAYS, DEFAULT_RESULT_THRESHOLD_BYTES, ENV, TOOL_NAME_PATTERN } from './construct-contract';
import { EventBridgeReplyPublisher, type ReplyPublisher } from './reply-bus';
import { ResultDispatcher } from './results/dispatch';
import { replyBusTarget } from './results/reply-bus-target';
import { flowTarget } from './results/flow-target';
import { flowsOf, type FlowStore } from './stores/types';
import type { ResultTarget } from './results/targets';
import type { ResultOffload } from './result-offload';
import { S3ResultOffload } from './result-offload-s3';
import type { Tool } from './tool';

export interface ToolHandlerOptions {
  /** The allowlist; intersected with TOOL_HANDLER_TOOLS when both are set. @default every tool */
  readonly tools?: readonly string[];
  /** Seconds a tool may run per invocation; the smaller of this and TOOL_HANDLER_TIMEOUT_S wins. @default 60 */
  readonly timeout?: number;
  /** Seconds kept back from Lambda's own deadline; the larger of this and TOOL_HANDLER_MARGIN_S wins. @default 1 */
  readonly margin?: number;
  /** Records of an SQS batch (FIFO: message groups) run at once. @default 10 */
  readonly concurrency?: number;
  /**
   * Where replies are published; `false` turns publishing off.
   * @default the EventBridge bus named by TOOL_HANDLER_REPLY_BUS (publishing as the executor's owner), else none
   */
  readonly replies?: ReplyPublisher | false;
  /**
   * Where the `reply_to` of waiting flows is kept (docs/flows.md); `false` turns flows off.
   * @default the flow store of the executor's call store (the table), else none
   */
  readonly flows?: FlowStore | false;
  /**
   * Where results too big for their way back go; `false` turns it off.
   * @default the S3 bucket named by TOOL_HANDLER_RESULT_BUCKET (what `resultOffload` sets), else none
   */
  readonly resultOffload?: ResultOffload | false;
}

/** What the handler returns: its host's answer (a batch response for SQS, the reply or Gateway reply otherwise). */
export type ToolHandlerResult = HostAnswer;

export type ToolLambdaHandler = (event: unknown, context?: Partial<Context>) => Promise<ToolHandlerResult>;

const DEFAULT_TIMEOUT_S = 60;
const DEFAULT_MARGIN_S = 1;
const DEFAULT_CONCURRENCY = 10;

/**
 * Builds the Lambda handler. The environment is read once, here: a value that does not parse
 * throws now, naming the variable.
 *
 * @example
 * import * as z from 'zod';
 * import { tool, toolHandler } from 'cdk-tool-handler/lambda';
 *
 * const add = tool({ name: 'add', input: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b });
 * export const handler = toolHandler([add], { timeout: 30 });
 *
 * // A direct invoke (SQS batches and EventBridge events are handled too):
 * const reply = await handler({ tool: 'add', args: { a: 1, b: 2 } });
 * console.log(reply); // { status: 'ok', tool: 'add', run_id: ..., call_id: ..., result: 3 }
 */
export function toolHandler(executorOrTools: ToolExecutor | readonly Tool<any>[], options: ToolHandlerOptions = {}): ToolLambdaHandler {
  const settings = resolveSettings(
    executorOrTools instanceof ToolExecutor ? executorOrTools : new ToolExecutor({ tools: executorOrTools }),
    options,
  );
  const handler: ToolLambdaHandler = async (event, context) => {
    const invocation = startInvocation(settings, context);
    try {
      // The first host that recognises the event answers it; the last, the direct invoke, takes any.
      for (const host of HOSTS as readonly Host<unknown, ToolHandlerResult>[]) {
        const reading = host.recognise(event, context);
        if (reading === undefined) continue;
        if (invocation.budgetMs > 0) return await host.answer(reading, invocation);
        const error = new ToolTimeout(`No time left to run the call: the deadline budget is ${invocation.budgetMs} ms.`);
        return await host.outOfTime(reading, error, invocation);
      }
      throw new TypeError('cdk-tool-handler: no host took the event.');
    } finally {
      invocation.deadline.end();
      writeLogLines();
    }
  };
  return markWithManifest(handler, settings.executor.toolList);
}

function resolveSettings(executor: ToolExecutor, options: ToolHandlerOptions): HandlerSettings {
  // Where both the environment and the code give a value, the stricter wins.
  const timeoutS = stricter(Math.min, DEFAULT_TIMEOUT_S, [
    readSeconds(ENV.timeoutSeconds, { allowZero: false }),
    optionSeconds('timeout', options.timeout, false),
  ]);
  const marginS = stricter(Math.max, DEFAULT_MARGIN_S, [
    readSeconds(ENV.marginSeconds, { allowZero: true }),
    optionSeconds('margin', options.margin, true),
  ]);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw configError(`toolHandler \`concurrency\` must be a whole number of at least 1, got: ${String(concurrency)}.`);
  }
  return {
    executor,
    allowed: intersect(readAllowlist(), optionAllowlist(options.tools)),
    timeoutMs: timeoutS * 1000,
    marginMs: marginS * 1000,
    concurrency,
    results: resultDispatcher(
      options.replies === false ? undefined : (options.replies ?? envReplyPublisher(executor.owner)),
      options.flows === false ? undefined : (options.flows ?? flowsOf(executor.calls) ?? flowsOf(executor.approvals)),
    ),
    maxReceiveCount: readCount(ENV.maxReceiveCount),
    callers: {
      proofKey: process.env[ENV.callerKey]?.trim() || undefined,
      bedrockAttribute: process.env[ENV.bedrockCallerAttribute]?.trim() || undefined,
    },
    offload: options.resultOffload === false ? undefined : (options.resultOffload ?? envResultOffload()),
  };
}

/** The offload bucket of the environment (`resultOffload` on the construct). */
function envResultOffload(): ResultOffload | undefined {
  // The construct's bundling defines this "false" for a handler without `resultOffload`: the
  // bundle then carries none of the offload code (OFFLOAD_BUNDLED; spelled out, as esbuild's define matches it).
  if (process.env.TOOL_HANDLER_RESULT_OFFLOAD === 'false') return undefined;
  const bucket = process.env[ENV.resultBucket]?.trim();
  if (!bucket) return undefined;
  const threshold = readCount(ENV.resultThresholdBytes, 'bytes') ?? DEFAULT_RESULT_THRESHOLD_BYTES;
  const expiryDays = readCount(ENV.resultExpiryDays, 'days') ?? DEFAULT_RESULT_EXPIRY_DAYS;
  return new S3ResultOffload({ bucket, threshold, expiryDays });
}

function stricter(pick: (...values: number[]) => number, fallback: number, values: Array<number | undefined>): number {
  const given = values.filter((value): value is number => value !== undefined);
  return given.length > 0 ? pick(...given) : fallback;
}

function optionSeconds(name: string, value: number | undefined, allowZero: boolean): number | undefined {
  return value === undefined ? undefined : checkSeconds(name, value, { allowZero });
}

function optionAllowlist(tools: readonly string[] | undefined): Set<string> | undefined {
  if (tools === undefined) return undefined;
  for (const name of tools) {
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw configError(`toolHandler \`tools\` must hold tool names, got: ${JSON.stringify(name)}.`);
    }
  }
  return new Set(tools);
}

function intersect(a: Set<string> | undefined, b: Set<string> | undefined): Set<string> | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return new Set([...a].filter((name) => b.has(name)));
}

/** Where the handler's results go: the reply bus, and waiting flows, when there are. */
function resultDispatcher(replies: ReplyPublisher | undefined, flows: FlowStore | undefined): ResultDispatcher {
  const targets: ResultTarget[] = [];
  if (replies) targets.push(replyBusTarget(replies));
  if (flows) targets.push(flowTarget(flows));
  return new ResultDispatcher(targets);
}

/** The reply bus of the environment, publishing as the executor's owner. */
function envReplyPublisher(owner: string): ReplyPublisher | undefined {
  const busName = process.env[ENV.replyBus]?.trim();
  const withArgs = process.env[ENV.notifyWithArgs]?.trim() === 'true';
  return busName ? new EventBridgeReplyPublisher({ busName, approvalArgs: withArgs, owner }) : undefined;
}

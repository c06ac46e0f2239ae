// Structural: any zod 4 schema (classic `zod` or `zod/mini`, 4.0 and up) is a `$ZodType`. The types
// resolve against the user's own zod (the package ships none), and `z.toJSONSchema` takes the same type.
import { safeParseAsync, type $ZodType, type input as Input, type output as Output } from 'zod/v4/core';
import { TOOL_NAME_PATTERN } from './construct-contract';
import { configError, ToolOutputInvalid, ToolUsageError } from './errors';
import type { Caller } from './caller';
import type { Trace } from './trace';
import type { JsonObject } from './json';

/** What a tool's `run` gets besides its args (made in tool-context.ts). */
export interface ToolContext {
  readonly runId: string;
  readonly callId: string;
  /** Set when the tool runs on the resume of an approval. */
  readonly approvalId?: string;
  /**
   * Whom the call acts for, as AWS or a checked signature attests it; never taken from the args.
   * On a resume, the caller of the call that asked. Undefined when the host proves nothing.
   */
  readonly caller?: Caller;
  /**
   * The trace the call continues (W3C `traceparent` and `tracestate`, from the envelope's `trace`,
   * an MCP call's `_meta` or an SQS record's `AWSTraceHeader`): pass it on to what the tool calls.
   * On a resume, the asking call's. Undefined when the call carried none.
   */
  readonly trace?: Trace;
  /** Where the call came from: `sqs:<arn>`, `events:<source>`, `lambda` or `direct`. */
  readonly source: string;
  /** Aborts at the deadline; a long-running tool should stop when it does. */
  readonly signal: AbortSignal;
  /** Epoch ms by which the tool must have finished. */
  readonly deadline: number;
}

/** How often a tool may be called: at most `limit` calls per fixed window of `window` seconds. */
export interface RateLimit {
  /** Calls allowed per window: a whole number of at least 1. */
  readonly limit: number;
  /** The window's length in seconds: a whole number of at least 1. */
  readonly window: number;
  /**
   * What is counted: each caller's calls apart (`caller`; calls without a caller share one count),
   * or every call of the tool together (`tool`). @default 'caller'
   */
  readonly by?: 'caller' | 'tool';
}

export interface ToolOptions<Schema extends $ZodType = $ZodType<JsonObject>, Result extends $ZodType = $ZodType> {
  /** 1 to 128 characters of `A-Z a-z 0-9 _ . -`. */
  readonly name: string;
  readonly description?: string;
  /** The args' schema: a zod 4 schema (`zod` or `zod/mini`). @default any JSON object, passed through unchanged */
  readonly input?: Schema;
  /** Whether a human must approve a call first; a predicate decides per call. @default false */
  readonly requiresApproval?: boolean | ((args: Output<Schema>) => boolean);
  /**
   * The tool only reads: running it twice does no harm, so its calls are never duplicate-suppressed
   * (no state store round trip at all). Cannot be combined with `requiresApproval`. @default false
   */
  readonly readOnly?: boolean;
  /**
   * The tool acts only for a verified caller (`ctx.caller` with `verified: true`): any other call is
   * refused with `CallerRequired` before it runs or asks for approval. @default false
   */
  readonly requiresCaller?: boolean;
  /**
   * At most `limit` calls per `window` seconds, per caller (`by: 'caller'`, the default) or for the
   * tool as a whole (`by: 'tool'`), counted in the state store before the tool runs or asks for
   * approval; a call over it is refused with `RateLimited` (`retry_after_s`). @default - no limit
   */
  readonly rateLimit?: RateLimit;
  /**
   * The result's schema: a zod 4 schema the return value is checked against after the run (what
   * it parses to is the reply's `result`); a mismatch is `ToolOutputInvalid`. MCP clients see it as
   * the tool's `outputSchema`. @default any JSON value, unchecked
   */
  readonly output?: Result;
  /** Runs the tool; the return value (JSON) is the reply's `result`. */
  readonly run: (args: Output<Schema>, context: ToolContext) => Input<Result> | Promise<Input<Result>>;
}

/** Whether a tool's calls need approval: always, never, or depending on the args. */
export type ApprovalMode = 'always' | 'never' | 'depends';

/** A defined tool, as `ToolExecutor` holds it. */
export interface Tool<Args = unknown> {
  readonly name: string;
  readonly description?: string;
  readonly input?: $ZodType;
  /** `always`, `never`, or `depends` (a predicate decides per call). */
  readonly approvalMode: ApprovalMode;
  /** Never duplicate-suppressed: no state store round trip. */
  readonly readOnly: boolean;
  /** Runs only for a verified caller. */
  readonly requiresCaller: boolean;
  /** The result's schema, if it has one. */
  readonly output?: $ZodType;
  /** Its rate limit, with `by` filled in; absent without one. */
  readonly rateLimit?: Required<RateLimit>;
  /**
   * Checks a run's JSON result against `output` and gives what it parses to; throws
   * `ToolOutputInvalid` naming the failing path. Absent without `output`: nothing to check.
   */
  readonly parseResult?: (result: unknown) => Promise<unknown>;
  /** Validates a call's args against `input`; throws `ToolUsageError` naming the failing path. */
  parseArgs(args: JsonObject): Args | Promise<Args>;
  needsApproval(args: Args): boolean;
  run(args: Args, context: ToolContext): unknown;
}

/**
 * Defines a tool. An invalid `name` throws here, at definition.
 *
 * @example
 * import * as z from 'zod';
 * import { tool } from 'cdk-tool-handler/lambda';
 *
 * const add = tool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   run: ({ a, b }) => a + b,
 * });
 * const refund = tool({
 *   name: 'refund',
 *   input: z.object({ orderId: z.string(), amount: z.number() }),
 *   requiresApproval: ({ amount }) => amount > 100, // a person approves large refunds first
 *   run: async ({ orderId }, { signal }) => ({ refunded: orderId, aborted: signal.aborted }),
 * });
 * console.log(add.name, refund.needsApproval({ orderId: 'o1', amount: 500 })); // add true
 */
export function tool<Schema extends $ZodType = $ZodType<JsonObject>, Result extends $ZodType = $ZodType>(
  options: ToolOptions<Schema, Result>,
): Tool<Output<Schema>> {
  if (typeof options.name !== 'string' || !TOOL_NAME_PATTERN.test(options.name)) {
    throw configError(`tool \`name\` must be 1 to 128 characters of A-Z a-z 0-9 _ . -, got: ${JSON.stringify(options.name)}.`);
  }
  if (typeof options.run !== 'function') {
    throw configError(`tool ${options.name} \`run\` must be a function, got: ${typeof options.run}.`);
  }
  const { name, input, output, requiresApproval = false, readOnly = false, requiresCaller = false } = options;
  if (output !== undefined && !isZodSchema(output)) {
    throw configError(`tool ${name} \`output\` must be a zod 4 schema, got: ${output === null ? 'null' : typeof output}.`);
  }
  if (typeof readOnly !== 'boolean') {
    throw configError(`tool ${name} \`readOnly\` must be a boolean, got: ${typeof readOnly}.`);
  }
  if (typeof requiresCaller !== 'boolean') {
    throw configError(`tool ${name} \`requiresCaller\` must be a boolean, got: ${typeof requiresCaller}.`);
  }
  if (readOnly && requiresApproval !== false) {
    throw configError(
      `tool ${name} \`readOnly\` and \`requiresApproval\` cannot be combined: a read-only tool is never ` +
        'duplicate-suppressed, so an approved call could run again; drop one of them.',
    );
  }
  return {
    name,
    description: options.description,
    input,
    approvalMode: typeof requiresApproval === 'function' ? 'depends' : requiresApproval ? 'always' : 'never',
    readOnly,
    requiresCaller,
    output,
    rateLimit: options.rateLimit === undefined ? undefined : checkRateLimit(name, options.rateLimit),
    parseResult: output ? (result) => parseWith(output, name, result, false) : undefined,
    parseArgs: input ? (args) => parseWith(input, name, args, true) : (args) => args as Output<Schema>,
    needsApproval: typeof requiresApproval === 'function' ? (args) => requiresApproval(args) === true : () => requiresApproval,
    run: options.run,
  };
}

type SafeParseResult<T> = Awaited<ReturnType<typeof safeParseAsync<$ZodType<T>>>>;

/**
 * The args (`isArgs`) or the result, checked; the message names paths and what was expected, never
 * the value that came: a `ToolUsageError` for args, `ToolOutputInvalid` for a result.
 */
async function parseWith(schema: $ZodType, toolName: string, data: unknown, isArgs: boolean): Promise<any> {
  const result = await safeParse(schema, data);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 5)
    .map((issue) => `\`${pathOf(isArgs ? 'args' : 'result', issue.path)}\`: ${issue.message}`)
    .join('; ');
  throw isArgs
    ? new ToolUsageError(`Invalid args for tool ${toolName}: ${problems}.`, { cause: result.error })
    : new ToolOutputInvalid(`Tool ${toolName} returned a result that does not match its \`output\` schema: ${problems}; fix the tool or its schema.`);
}

function safeParse<Schema extends $ZodType>(schema: Schema, data: unknown): Promise<SafeParseResult<Output<Schema>>> {
  // Async even for sync schemas: a sync attempt would start an async refinement and then run it again.
  // The schema's own method where it has one (classic and mini do), so that the error is its flavour's.
  const own = (schema as { safeParseAsync?: (data: unknown) => Promise<SafeParseResult<Output<Schema>>> }).safeParseAsync;
  return typeof own === 'function' ? own.call(schema, data) : safeParseAsync(schema, data);
}

function checkRateLimit(name: string, rateLimit: RateLimit): Required<RateLimit> {
  const { limit, window, by = 'caller' } = rateLimit ?? ({} as RateLimit);
  const wrong = !isCount(limit) ? 'limit' : !isCount(window) ? 'window' : by !== 'caller' && by !== 'tool' ? 'by' : undefined;
  if (wrong) {
    const expected = wrong === 'by' ? "'caller' or 'tool'" : 'a whole number of at least 1';
    const got: unknown = { limit, window, by }[wrong];
    throw configError(`tool ${name} \`rateLimit.${wrong}\` must be ${expected}, got: ${typeof got === 'string' ? JSON.stringify(got) : String(got)}.`);
  }
  return { limit, window, by };
}

function isCount(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 1;
}

function isZodSchema(value: unknown): value is $ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function pathOf(root: string, path: readonly PropertyKey[]): string {
  let text = root;
  for (const segment of path) text += typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`;
  return text;
}

import type { Delivery } from './delivery';
import { ToolFailed, ToolOutputInvalid, ToolTimeout } from './errors';
import { jsonRoundTrip } from './json';
import { OffloadedResult, RESULT_LIMITS, resultTooLarge } from './result-offload';
import type { OkReply } from './reply';
import type { Tool } from './tool';
import { toolContext, type ToolCall } from './tool-context';
import { writeLogLines } from './log';

/**
 * Runs one tool within its delivery's deadline. The tool gets the deadline's signal, and the run ends
 * as that signal's `ToolTimeout` when it aborts, whether or not the tool heeds it. Returns the JSON
 * round-tripped result; anything the tool throws, or a result JSON cannot hold, is a `ToolFailed`.
 */
export async function runTool<Args>(tool: Tool<Args>, args: Args, call: ToolCall, delivery: Delivery): Promise<unknown> {
  const value = await runToolOnly(tool, args, call, delivery);
  let json: string;
  let result: unknown;
  try {
    json = value === undefined ? 'null' : JSON.stringify(value);
    if (json === undefined) throw new TypeError(`a ${typeof value} is not JSON`);
    result = JSON.parse(json);
  } catch (error) {
    throw new ToolFailed(`Tool ${tool.name} returned a result that is not JSON: ${describe(error)}`, { cause: error });
  }
  // A tool without an `output` schema pays nothing here. What the schema parses to is the result.
  if (tool.parseResult !== undefined) {
    result = parsedResult(tool, await tool.parseResult(result));
    json = JSON.stringify(result);
  }
  // A UTF-16 unit is at most 3 UTF-8 bytes: a result that surely fits is never measured.
  const offload = delivery.results;
  const bound = offload === undefined ? (delivery.resultLimit ?? RESULT_LIMITS.sync) : Math.min(offload.threshold, delivery.resultLimit ?? RESULT_LIMITS.sync);
  if (json.length * 3 <= bound) return result;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= bound) return result;
  if (offload === undefined) throw resultTooLarge(tool.name, bytes, bound);
  return new OffloadedResult(await offload.put(json, bytes, { owner: delivery.owner ?? '', runId: call.runId, callId: call.callId }));
}

/** Runs the tool: its value as it returned it. */
async function runToolOnly<Args>(tool: Tool<Args>, args: Args, call: ToolCall, delivery: Delivery): Promise<unknown> {
  const { deadline } = delivery;
  const { signal } = deadline;
  if (deadline.at - Date.now() <= 0 || signal.aborted) {
    throw new ToolTimeout(`Tool ${tool.name} was not started: the deadline had passed.`);
  }
  // Its own output goes after the lines of the calls that ended before it started.
  writeLogLines();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  let value: unknown;
  try {
    const context = toolContext(call, delivery);
    value = await Promise.race([Promise.resolve().then(() => tool.run(args, context)), aborted]);
  } catch (error) {
    // A tool that rejects as soon as it is aborted still timed out.
    if (signal.aborted) throw signal.reason as ToolTimeout;
    throw new ToolFailed(`Tool ${tool.name} failed: ${describe(error)}`, { cause: error });
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
  return value;
}

function parsedResult(tool: Tool<any>, parsed: unknown): unknown {
  try {
    return jsonRoundTrip(parsed);
  } catch (error) {
    throw new ToolOutputInvalid(`Tool ${tool.name}'s \`output\` schema parses its result to something that is not JSON: ${describe(error)}`);
  }
}

/**
 * Runs a call's tool on its parsed args and answers `ok`: the one place a run's reply is made, for a
 * plain call and for the resume of an approval alike (`call.approvalId` set).
 */
export async function runCall(tool: Tool<any>, args: unknown, call: ToolCall, delivery: Delivery): Promise<OkReply> {
  const { runId, callId, approvalId, trace } = call;
  const result = await runTool(tool, args, call, delivery);
  const reply: { -readonly [K in keyof OkReply]: OkReply[K] } =
    result instanceof OffloadedResult
      ? { status: 'ok', tool: tool.name, run_id: runId, call_id: callId, result_ref: result.ref }
      : { status: 'ok', tool: tool.name, run_id: runId, call_id: callId, result };
  if (approvalId !== undefined) reply.approval_id = approvalId;
  if (trace !== undefined) reply.trace_id = trace.traceId;
  return reply;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

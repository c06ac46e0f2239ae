import type { Delivery } from './delivery';
import { ToolFailed, ToolOutputInvalid, ToolTimeout } from './errors';
import { RESULT_LIMITS, resultTooLarge, type ResultRef } from './result-offload';
import type { OkReply } from './reply';
import type { Tool } from './tool';
import { toolContext, type ToolCall } from './tool-context';
import { writeLogLines } from './log';

/**
 * Runs a call's tool on its parsed args within its delivery's deadline and answers `ok`: the one place
 * a run's reply is made, for a plain call and for the resume of an approval alike (`call.approvalId`
 * set). The tool gets the deadline's signal, and the run ends as that signal's `ToolTimeout` when it
 * aborts, whether or not the tool heeds it. The result is JSON round-tripped; anything the tool
 * throws, or a result JSON cannot hold or too big for its way back, is a `ToolFailed`.
 */
export async function runCall(tool: Tool<any>, args: unknown, call: ToolCall, delivery: Delivery): Promise<OkReply> {
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
  let [json, result] = asJson(tool, value, false);
  // A tool without an `output` schema pays nothing here. What the schema parses to is the result.
  if (tool.parseResult !== undefined) [json, result] = asJson(tool, await tool.parseResult(result), true);
  // A UTF-16 unit is at most 3 UTF-8 bytes: a result that surely fits is never measured.
  const offload = delivery.results;
  // A waiting flow takes less than any host's way back.
  const limit = call.flow ? RESULT_LIMITS.flow : (delivery.resultLimit ?? RESULT_LIMITS.sync);
  const bound = offload === undefined ? limit : Math.min(offload.threshold, limit);
  let ref: ResultRef | undefined;
  if (json.length * 3 > bound) {
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > bound) {
      if (offload === undefined) throw resultTooLarge(tool.name, bytes, bound);
      ref = await offload.put(json, bytes, { owner: delivery.owner ?? '', runId: call.runId, callId: call.callId });
    }
  }
  const reply: { -readonly [K in keyof OkReply]: OkReply[K] } =
    ref === undefined
      ? { status: 'ok', tool: tool.name, run_id: call.runId, call_id: call.callId, result }
      : { status: 'ok', tool: tool.name, run_id: call.runId, call_id: call.callId, result_ref: ref };
  if (call.approvalId !== undefined) reply.approval_id = call.approvalId;
  if (call.trace !== undefined) reply.trace_id = call.trace.traceId;
  return reply;
}

/**
 * `value` as JSON carries it (`undefined` becomes `null`), and its text. What JSON cannot hold fails
 * the run: the tool's result (`ToolFailed`), or what its `output` schema parsed it to (`ToolOutputInvalid`).
 */
function asJson(tool: Tool<any>, value: unknown, parsed: boolean): [string, unknown] {
  try {
    const json = value === undefined ? 'null' : JSON.stringify(value);
    if (json === undefined) throw new TypeError(`a ${typeof value} is not JSON`);
    return [json, JSON.parse(json)];
  } catch (error) {
    throw parsed
      ? new ToolOutputInvalid(`Tool ${tool.name}'s \`output\` schema parses its result to something that is not JSON: ${describe(error)}`)
      : new ToolFailed(`Tool ${tool.name} returned a result that is not JSON: ${describe(error)}`, { cause: error });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

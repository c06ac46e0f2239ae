import { ToolFailed, ToolTimeout } from './errors';
import { jsonRoundTrip } from './json';
import type { Tool, ToolContext } from './tool';

export interface RunToolOptions extends Omit<ToolContext, 'signal'> {
  /** Aborting it ends the run as a `ToolTimeout` (the invocation's deadline passed). */
  readonly signal?: AbortSignal;
  /**
   * A signal known to abort exactly at `deadline` with a `ToolTimeout` (the invocation's own). When
   * given, the tool gets it as is and no timer of its own is set: the hot path of a batch.
   */
  readonly deadlineSignal?: AbortSignal;
}

/**
 * Runs one tool within its deadline. The tool's signal aborts at the deadline and the run ends as a
 * `ToolTimeout` then, whether or not the tool heeds the signal. Returns the JSON round-tripped
 * result; anything the tool throws, or a result JSON cannot hold, is a `ToolFailed`.
 */
export async function runTool<Args>(tool: Tool<Args>, args: Args, options: RunToolOptions): Promise<unknown> {
  const budget = options.deadline - Date.now();
  if (budget <= 0 || options.signal?.aborted || options.deadlineSignal?.aborted) {
    throw new ToolTimeout(`Tool ${tool.name} was not started: the deadline had passed.`);
  }
  const value = options.deadlineSignal
    ? await runUntilAborted(tool, args, options, options.deadlineSignal)
    : await runWithTimer(tool, args, options, budget);
  try {
    return jsonRoundTrip(value);
  } catch (error) {
    throw new ToolFailed(`Tool ${tool.name} returned a result that is not JSON: ${describe(error)}`, { cause: error });
  }
}

async function runUntilAborted<Args>(tool: Tool<Args>, args: Args, options: RunToolOptions, signal: AbortSignal): Promise<unknown> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const { deadlineSignal: _shared, ...context } = options;
    return await Promise.race([Promise.resolve().then(() => tool.run(args, { ...context, signal })), aborted]);
  } catch (error) {
    if (signal.aborted) throw signal.reason as ToolTimeout;
    throw new ToolFailed(`Tool ${tool.name} failed: ${describe(error)}`, { cause: error });
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

async function runWithTimer<Args>(tool: Tool<Args>, args: Args, options: RunToolOptions, budget: number): Promise<unknown> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let expire: (() => void) | undefined;
  const expired = new Promise<never>((_, reject) => {
    expire = () => {
      const error = new ToolTimeout(`Tool ${tool.name} did not finish within its ${budget} ms budget.`);
      controller.abort(error);
      reject(error);
    };
    timer = setTimeout(expire, budget);
  });
  options.signal?.addEventListener('abort', expire!, { once: true });
  try {
    const context: ToolContext = { ...options, signal: controller.signal };
    return await Promise.race([Promise.resolve().then(() => tool.run(args, context)), expired]);
  } catch (error) {
    // A tool that rejects as soon as it is aborted still timed out.
    if (controller.signal.aborted) throw controller.signal.reason as ToolTimeout;
    throw new ToolFailed(`Tool ${tool.name} failed: ${describe(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', expire!);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

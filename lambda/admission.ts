/**
 * What a call must pass before its tool runs or asks for approval: the one place for the checks a
 * tool's options ask of a call itself (who calls, how often). A check added to `tool()` is added here.
 */
import type { Delivery, PlainCall } from './delivery';
import { AdapterError, CallerRequired, RateLimited } from './errors';
import type { CallStore } from './stores/types';
import type { Tool } from './tool';

/** Throws the refusal of a call that `tool` may not take from this delivery. */
export function admitCall(tool: Tool<any>, delivery: Delivery): void {
  if (tool.requiresCaller && !delivery.caller?.verified) throw callerRequired(tool.name);
}

/**
 * Counts the call against its tool's `rateLimit` (one store round trip; none for a tool without
 * one), or throws `RateLimited` when its window is full. Counted before the run or the approval
 * request, whatever comes of them.
 */
export async function admitRate(tool: Tool<any>, call: PlainCall, calls: CallStore | undefined, now = Date.now()): Promise<void> {
  const { limit, window, by } = tool.rateLimit!;
  if (!calls?.countCall) {
    throw new AdapterError(
      `Tool ${tool.name} has a \`rateLimit\`, but no state store counts calls here: deploy it with the construct, or give ToolExecutor a \`calls\` store.`,
    );
  }
  const ms = window * 1000;
  const end = Math.ceil((now + 1) / ms) * ms;
  const counter = JSON.stringify(by === 'tool' ? [tool.name] : [tool.name, call.caller?.id ?? null]);
  if (await calls.countCall({ counter, start: end - ms, end, limit })) return;
  const retryAfter = Math.ceil((end - now) / 1000);
  throw new RateLimited(
    `Tool ${tool.name} allows ${limit} calls per ${window} s${by === 'tool' ? '' : call.caller ? ' for this caller' : ' for calls without a caller'}, and this window has had them: retry in ${retryAfter} s.`,
    retryAfter,
  );
}

function callerRequired(tool: string): CallerRequired {
  return new CallerRequired(
    `Tool ${tool} acts only for a verified caller, and this call proves none: send it through a host that proves its caller ` +
      '(an SQS message, or an AgentCore Gateway with caller identity).',
  );
}

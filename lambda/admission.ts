/**
 * What a call must pass before its tool runs or asks for approval: the one place for the checks a
 * tool's options ask of a call itself (who calls). A check added to `tool()` is added here.
 */
import type { Delivery } from './delivery';
import { CallerRequired } from './errors';
import type { Tool } from './tool';

/** Throws the refusal of a call that `tool` may not take from this delivery. */
export function admitCall(tool: Tool<any>, delivery: Delivery): void {
  if (tool.requiresCaller && !delivery.caller?.verified) throw callerRequired(tool.name);
}

function callerRequired(tool: string): CallerRequired {
  return new CallerRequired(
    `Tool ${tool} acts only for a verified caller, and this call proves none: send it through a host that proves its caller ` +
      '(an SQS message, or an AgentCore Gateway with caller identity).',
  );
}

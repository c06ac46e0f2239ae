/**
 * The approvals engine: the only code that creates, claims, releases and completes approvals for a
 * tool handler. It trusts nothing its caller sends (Lambda cannot tell it who called): it derives the
 * approval id and fingerprint itself, keeps its own allowlist and owner, and caps every claim.
 */
import { asToolHandlerError, ToolNotFound, ToolUsageError } from '../errors';
import { approvalIdFor, callFingerprint } from '../ids';
import type { ApprovalStore } from '../stores/types';
import { engineRequestSchema, type EngineRequest, type EngineResponse } from './engine-protocol';
import { toWireError } from './wire-errors';

export interface ApprovalsEngineOptions {
  readonly store: ApprovalStore;
  /** The tools the handler may run: approvals are created and claimed for these only. */
  readonly allowed: ReadonlySet<string>;
  /** The longest a claim may last, in ms (the handler function's timeout). */
  readonly claimMaxMs: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export type ApprovalsEngine = (request: unknown) => Promise<EngineResponse>;

export function approvalsEngine(options: ApprovalsEngineOptions): ApprovalsEngine {
  const now = options.now ?? Date.now;
  return async (request) => {
    try {
      return await run(parseRequest(request));
    } catch (error) {
      return { ok: false, error: toWireError(asToolHandlerError(error)) };
    }
  };

  async function run(request: EngineRequest): Promise<EngineResponse> {
    const { store } = options;
    switch (request.op) {
      case 'create': {
        if (!options.allowed.has(request.tool)) throw notAllowed(request.tool);
        const outcome = await store.create({
          approvalId: approvalIdFor(request.run_id, request.call_id),
          tool: request.tool,
          args: request.args,
          runId: request.run_id,
          callId: request.call_id,
          fingerprint: callFingerprint(request.tool, request.args),
          ...(request.requested_by === undefined ? {} : { requestedBy: request.requested_by }),
          ...(request.flow === undefined ? {} : { flow: request.flow }),
          ...(request.trace === undefined ? {} : { trace: request.trace }),
        });
        return { ok: true, created: outcome.created, record: outcome.record };
      }
      case 'claim': {
        const asked = request.tools === undefined ? undefined : new Set(request.tools);
        const allowed = new Set([...options.allowed].filter((name) => asked === undefined || asked.has(name)));
        const until = Math.min(request.until, now() + options.claimMaxMs);
        const outcome = await store.claim(request.approval_id, {
          until,
          allowedTools: allowed,
          token: request.token,
          runIdPrefix: request.run_id_prefix,
          requestedBy: request.requested_by,
        });
        return { ok: true, claimed: outcome.claimed, ...(outcome.record ? { record: outcome.record } : {}) };
      }
      case 'release':
        await store.release(request.approval_id, request.token);
        return { ok: true };
      case 'complete':
        await store.complete(request.approval_id, request.token, request.result);
        return { ok: true };
    }
  }
}

function parseRequest(request: unknown): EngineRequest {
  const parsed = engineRequestSchema.safeParse(request);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue.path.length > 0 ? issue.path.join('.') : 'the request';
  throw new ToolUsageError(`The approvals engine got a bad request: ${at}: ${issue.message}`);
}

function notAllowed(tool: string): ToolNotFound {
  return new ToolNotFound(`Tool ${tool} is not in the approvals engine's allowlist.`);
}

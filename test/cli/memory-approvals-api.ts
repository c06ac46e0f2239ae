/**
 * The approvals API in memory, as a function-URL handler (payload 2.0 in, function URL
 * response out), for the CLI's tests until (and beside) the real API function. It follows the HTTP
 * table: list (by status, `limit` default 50 at most 100, opaque `next`), read (404 when missing,
 * 200 `expired` when expired), decide (400 naming the field, 404 missing, 409 `already_decided`,
 * `fingerprint_mismatch`, `expired`); `decided_by` is the caller's `userArn`.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FunctionUrlEvent, FunctionUrlResult } from '../../local/function-url';
import type { ApprovalRecord, ApprovalStatus } from '../../approvals-client/record';

export interface SeedInput {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly runId?: string;
  readonly callId?: string;
  /** Already past its expiry. @default false */
  readonly expired?: boolean;
}

interface Stored {
  approvalId: string;
  tool: string;
  args: Record<string, unknown>;
  runId: string;
  callId: string;
  createdAt: number;
  expiresAt: number;
  decision?: { approved: boolean; by: string; at: number; reason?: string };
}

export interface MemoryApprovalsApi {
  handler(event: FunctionUrlEvent): Promise<FunctionUrlResult>;
  seed(input: SeedInput): Promise<string>;
  /** Changes an approval's args behind the CLI's back (a fingerprint the CLI read goes stale). */
  rewriteArgs(approvalId: string, args: Record<string, unknown>): void;
}

export interface MemoryApprovalsApiOptions {
  /** Records a page holds at most, below any `limit` (a page may hold fewer than `limit`). @default 100 */
  readonly maxPageSize?: number;
}

const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];

export function memoryApprovalsApi(options: MemoryApprovalsApiOptions = {}): MemoryApprovalsApi {
  const items = new Map<string, Stored>();
  let clock = 0;

  function record(s: Stored): ApprovalRecord {
    return {
      approval_id: s.approvalId,
      tool: s.tool,
      args: s.args,
      run_id: s.runId,
      call_id: s.callId,
      status: statusOf(s),
      fingerprint: fingerprint(s.tool, s.args),
      created_at: new Date(s.createdAt).toISOString(),
      expires_at: new Date(s.expiresAt).toISOString(),
      ...(s.decision
        ? {
            decided_by: s.decision.by,
            decided_at: new Date(s.decision.at).toISOString(),
            ...(s.decision.reason === undefined ? {} : { reason: s.decision.reason }),
          }
        : {}),
    };
  }

  function list(query: Record<string, string>): FunctionUrlResult {
    const status = query.status;
    if (status !== undefined && !STATUSES.includes(status as ApprovalStatus)) {
      return error(400, 'invalid_request', `status must be one of ${STATUSES.join(', ')}`);
    }
    let limit = 50;
    if (query.limit !== undefined) {
      if (!/^\d+$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > 100) {
        return error(400, 'invalid_request', 'limit must be an integer from 1 to 100');
      }
      limit = Number(query.limit);
    }
    let start = 0;
    if (query.next !== undefined) {
      const decoded = /^o(\d+)$/.exec(Buffer.from(query.next, 'base64url').toString('utf8'));
      if (!decoded) return error(400, 'invalid_request', 'next is not a token of this API');
      start = Number(decoded[1]);
    }
    const all = [...items.values()]
      .sort((a, b) => a.createdAt - b.createdAt || a.approvalId.localeCompare(b.approvalId))
      .map(record)
      .filter((r) => status === undefined || r.status === status);
    const size = Math.min(limit, options.maxPageSize ?? 100);
    const page = all.slice(start, start + size);
    const end = start + page.length;
    return ok({ approvals: page, ...(end < all.length ? { next: Buffer.from(`o${end}`).toString('base64url') } : {}) });
  }

  function decide(id: string, body: string | undefined, by: string): FunctionUrlResult {
    let input: unknown;
    try {
      input = JSON.parse(body ?? '');
    } catch {
      return error(400, 'invalid_request', 'the body must be a JSON object');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return error(400, 'invalid_request', 'the body must be a JSON object');
    const { approved, reason, fingerprint: sent } = input as Record<string, unknown>;
    if (typeof approved !== 'boolean') return error(400, 'invalid_request', '`approved` must be a boolean');
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > 1000)) {
      return error(400, 'invalid_request', '`reason` must be a string of at most 1000 characters');
    }
    if (typeof sent !== 'string' || sent === '') return error(400, 'invalid_request', '`fingerprint` must be a non-empty string');
    const s = items.get(id);
    if (!s) return error(404, 'not_found', `approval ${id} does not exist`);
    const status = statusOf(s);
    if (status === 'expired') return error(409, 'expired', `approval ${id} expired at ${new Date(s.expiresAt).toISOString()}`);
    if (status !== 'pending') return error(409, 'already_decided', `approval ${id} is already ${status}`);
    if (sent !== fingerprint(s.tool, s.args)) {
      return error(409, 'fingerprint_mismatch', `approval ${id}: the tool and args no longer match the fingerprint sent`);
    }
    s.decision = { approved, by, at: Date.now(), ...(reason === undefined ? {} : { reason: reason as string }) };
    return ok(record(s));
  }

  return {
    async handler(event) {
      const method = event.requestContext.http.method;
      const path = event.rawPath.replace(/\/+$/, '');
      const query = event.queryStringParameters ?? {};
      const by = event.requestContext.authorizer.iam.userArn;
      if (path === '/approvals') return method === 'GET' ? list(query) : error(405, 'method_not_allowed', `${method} ${path}`);
      const one = /^\/approvals\/([^/]+)$/.exec(path);
      if (one) {
        if (method !== 'GET') return error(405, 'method_not_allowed', `${method} ${path}`);
        const s = items.get(decodeURIComponent(one[1]));
        return s ? ok(record(s)) : error(404, 'not_found', `approval ${decodeURIComponent(one[1])} does not exist`);
      }
      const decision = /^\/approvals\/([^/]+)\/decision$/.exec(path);
      if (decision) {
        if (method !== 'POST') return error(405, 'method_not_allowed', `${method} ${path}`);
        return decide(decodeURIComponent(decision[1]), event.body, by);
      }
      return error(404, 'not_found', `no route ${method} ${path}`);
    },
    async seed(input) {
      const now = Date.now();
      const approvalId = `apr_${randomUUID().replace(/-/g, '')}`;
      items.set(approvalId, {
        approvalId,
        tool: input.tool,
        args: input.args,
        runId: input.runId ?? `run_${randomUUID()}`,
        callId: input.callId ?? `call_${randomUUID()}`,
        createdAt: now + clock++, // distinct, increasing: a stable order
        expiresAt: input.expired ? now - 1000 : now + 3_600_000,
      });
      return approvalId;
    },
    rewriteArgs(approvalId, args) {
      const s = items.get(approvalId);
      if (!s) throw new Error(`no approval ${approvalId}`);
      s.args = args;
    },
  };
}

function statusOf(s: Stored): ApprovalStatus {
  if (s.decision) return s.decision.approved ? 'approved' : 'denied';
  return Date.now() >= s.expiresAt ? 'expired' : 'pending';
}

function fingerprint(tool: string, args: unknown): string {
  return createHash('sha256').update(tool).update('\0').update(JSON.stringify(args)).digest('base64url');
}

function ok(body: unknown): FunctionUrlResult {
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function error(statusCode: number, type: string, message: string): FunctionUrlResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { type, message } }) };
}

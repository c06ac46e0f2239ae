/**
 * The approvals API: list, read and decide. Behind a Lambda function URL with AWS_IAM auth by
 * default; the inbox serves the same routes to approvers it authenticates by token. The decider
 * is whoever `authenticate` says, never a field of the request.
 */
import type { APIGatewayProxyStructuredResultV2 as LambdaFunctionURLResult, LambdaFunctionURLEvent } from 'aws-lambda';
import * as z from 'zod';
import { decisionAudit } from './approval-audit';
import { ownerFrom } from '../config';
import { ApprovalNotFound, StoreMisconfigured, StoreUnavailable, ToolHandlerError, ToolUsageError } from '../errors';
import { logAudit, writeLogLines } from '../log';
import { decisionMetrics, type MetricsTarget } from '../metrics/approvals';
import { approvalMissing, DecisionRefused } from '../stores/store-errors';
import { MAX_PAGE_LIMIT } from '../stores/options';
import type { ApprovalStatus, ApprovalStore } from '../stores/types';
import { toApiRecord } from './api-record';
import { iamApprover, Unauthenticated, type Authenticate } from './authenticate';

export interface ApprovalsApiOptions {
  readonly store: ApprovalStore;
  /** Whose decisions are counted, in which namespace. @default - no metrics line */
  readonly metrics?: MetricsTarget;
  /** Who is asking, on every route. @default iamApprover - the signer an AWS_IAM function URL verified */
  readonly authenticate?: Authenticate;
}

export type ApprovalsApi = (event: LambdaFunctionURLEvent) => Promise<LambdaFunctionURLResult>;

const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];

/** C0 and C1 control characters (DEL included): a reason is shown to people on terminals. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

const decisionSchema = z.strictObject({
  approved: z.boolean(),
  reason: z
    .string()
    .max(4096)
    .refine((reason) => !CONTROL_CHARACTERS.test(reason), 'must not hold control characters (U+0000 to U+001F, U+007F to U+009F)')
    .optional(),
  fingerprint: z.string().min(1).max(256),
});

/** An answer other than 200, with the `error.type` the API documents. */
class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export function approvalsApi(options: ApprovalsApiOptions): ApprovalsApi {
  const { store } = options;
  const authenticate = options.authenticate ?? iamApprover;
  return async (event) => {
    try {
      return json(200, await route(event));
    } catch (error) {
      const http = asHttpError(error);
      if (http.statusCode >= 500) console.error(JSON.stringify({ level: 'ERROR', message: 'approvals API failed', error: String(error) }));
      return json(http.statusCode, { error: { type: http.type, message: http.message } });
    }
  };

  async function route(event: LambdaFunctionURLEvent): Promise<unknown> {
    const method = event.requestContext?.http?.method ?? '';
    const segments = pathSegments(event.rawPath ?? '/');
    if (segments[0] !== 'approvals' || segments.length > 3 || (segments.length === 3 && segments[2] !== 'decision')) {
      throw new HttpError(404, 'not_found', 'No such resource: the API serves /approvals, /approvals/{id} and /approvals/{id}/decision.');
    }
    if (segments.length === 1) {
      allow(method, 'GET');
      await authenticate(event);
      return list(event.queryStringParameters ?? {});
    }
    const approvalId = segments[1];
    if (segments.length === 2) {
      allow(method, 'GET');
      await authenticate(event);
      const record = await store.read(approvalId);
      if (!record) throw approvalMissing(approvalId);
      return toApiRecord(record);
    }
    allow(method, 'POST');
    const { id: by } = await authenticate(event);
    const body = parseDecision(event);
    const record = await store.decide(approvalId, {
      approved: body.approved,
      by,
      fingerprint: body.fingerprint,
      ...(body.reason === undefined ? {} : { reason: body.reason }),
    });
    // The decision's audit record, which carries its metrics.
    const metrics = options.metrics && decisionMetrics(options.metrics, body.approved);
    logAudit('approval decided', decisionAudit(record, options.metrics?.owner ?? ownerFrom()), metrics);
    writeLogLines();
    return toApiRecord(record);
  }

  async function list(query: Record<string, string | undefined>): Promise<unknown> {
    const unknown = Object.keys(query).filter((key) => !['status', 'limit', 'next'].includes(key));
    if (unknown.length > 0) throw badRequest(`Unknown query parameter ${unknown[0]}; the list takes status, limit and next.`);
    const status = query.status;
    if (status !== undefined && !STATUSES.includes(status as ApprovalStatus)) {
      throw badRequest(`status must be one of ${STATUSES.join(', ')}.`);
    }
    let limit: number | undefined;
    if (query.limit !== undefined) {
      limit = Number(query.limit);
      if (!/^\d+$/.test(query.limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
        throw badRequest(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}.`);
      }
    }
    const page = await store.listPage({ status: status as ApprovalStatus | undefined, limit, next: query.next });
    return { approvals: page.records.map(toApiRecord), ...(page.next === undefined ? {} : { next: page.next }) };
  }
}

function parseDecision(event: LambdaFunctionURLEvent): z.infer<typeof decisionSchema> {
  const raw = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw badRequest('The body must be a JSON object { "approved": boolean, "reason"?: string, "fingerprint": string }.');
  }
  const parsed = decisionSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.') || 'body';
  throw badRequest(`Bad decision body: ${field}: ${issue.message}.`);
}

function pathSegments(rawPath: string): string[] {
  try {
    return rawPath.split('/').filter((segment) => segment.length > 0).map((segment) => decodeURIComponent(segment));
  } catch {
    throw badRequest('The path is not valid percent-encoding.');
  }
}

function allow(method: string, expected: string): void {
  if (method !== expected) throw new HttpError(405, 'method_not_allowed', `${method} is not allowed here; use ${expected}.`);
}

function badRequest(message: string): HttpError {
  return new HttpError(400, 'bad_request', message);
}

function asHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof Unauthenticated) return new HttpError(error.statusCode, 'unauthenticated', error.message);
  if (error instanceof ApprovalNotFound) return new HttpError(404, 'not_found', error.message);
  if (error instanceof DecisionRefused) return new HttpError(409, error.conflict, error.message);
  if (error instanceof ToolUsageError) return badRequest(error.message);
  // A table that cannot serve the request: no retry helps, and the message says what to fix.
  if (error instanceof StoreMisconfigured) return new HttpError(500, 'misconfigured', error.message);
  if (error instanceof StoreUnavailable) return new HttpError(503, 'unavailable', error.message);
  if (error instanceof ToolHandlerError && error.retryable) return new HttpError(503, 'unavailable', error.message);
  return new HttpError(500, 'internal', 'The approvals API failed; see its logs.');
}

function json(statusCode: number, body: unknown): LambdaFunctionURLResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

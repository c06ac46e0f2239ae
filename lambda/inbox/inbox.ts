/**
 * The approvals inbox: one page for people who decide approvals, and the JSON routes it calls, in
 * one function. `GET /` is the page (lambda/inbox/page.ts); everything under `/api/` needs a bearer
 * token that this function verifies itself (lambda/inbox/oidc-approver.ts), and reaches approvals
 * through the approvals API's own routes (lambda/approvals/api.ts), per owner, with the approver
 * the token names: the same fingerprint rule, owner walls and audit records as the CLI's.
 *
 *   GET  /api/me                                             who is signed in, and the owners (with their tools) they may decide
 *   GET  /api/approvals?owner=&status=&limit=&next=          a page of that owner's approvals
 *   GET  /api/approvals/{id}?owner=                          one approval
 *   POST /api/approvals/{id}/decision?owner=                 decide it (Origin must be the inbox's own)
 *
 * `owner` may be left out when the inbox serves one owner.
 * Nothing is decided on GET, and no cookie is read: a link opened by a mail scanner decides nothing.
 * An owner the approver may not decide is answered as if it did not exist (404).
 */
import type { APIGatewayProxyStructuredResultV2 as HttpResult, LambdaFunctionURLEvent } from 'aws-lambda';
import { approvalsApi, type ApprovalsApi } from '../approvals/api';
import { Unauthenticated } from '../approvals/authenticate';
import { trustedIssuer } from '../interceptor/issuer';
import type { MetricsTarget } from '../metrics/approvals';
import type { ApprovalStore } from '../stores/types';
import { IssuerUnreachable, oidcApprover, type InboxApprover } from './oidc-approver';
import { inboxPage } from './page';
import type { InboxSettings } from './settings';

export interface ApprovalsInboxOptions {
  readonly settings: InboxSettings;
  /** The approvals store of one owner the inbox serves. */
  readonly storeOf: (owner: string) => ApprovalStore;
  /** The namespace of the decisions' metrics. @default - no metrics line */
  readonly metricsNamespace?: string;
}

export type ApprovalsInbox = (event: LambdaFunctionURLEvent) => Promise<HttpResult>;

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

export function approvalsInbox(options: ApprovalsInboxOptions): ApprovalsInbox {
  const { settings } = options;
  // The approver of each forwarded request, verified once by the inbox before it forwards.
  const verified = new WeakMap<object, InboxApprover>();
  const apis = new Map<string, ApprovalsApi>(
    settings.handlers.map((h) => {
      const metrics: MetricsTarget | undefined = options.metricsNamespace === undefined ? undefined : { owner: h.owner, namespace: options.metricsNamespace };
      const api = approvalsApi({
        store: options.storeOf(h.owner),
        ...(metrics ? { metrics } : {}),
        authenticate: async (event) => {
          const approver = verified.get(event);
          if (!approver) throw new Unauthenticated(401, 'Sign in again: the request was not authenticated.');
          return approver;
        },
      });
      return [h.owner, api];
    }),
  );

  return async (event) => {
    const method = event.requestContext?.http?.method ?? '';
    const path = event.rawPath ?? '/';
    try {
      if (path === '/api' || path.startsWith('/api/')) return await apiRoute(event, method, path);
      if (path !== '/' && path !== '/index.html') return error(404, 'not_found', 'No such page: the inbox is at /.');
      if (method !== 'GET' && method !== 'HEAD') return error(405, 'method_not_allowed', `${method} is not allowed here; use GET.`);
      const endpoints =
        settings.authorizationEndpoint && settings.tokenEndpoint
          ? settings
          : await trustedIssuer(`${settings.issuer}/.well-known/openid-configuration`);
      if (!endpoints.authorizationEndpoint || !endpoints.tokenEndpoint) {
        return error(503, 'unavailable', 'The sign-in provider names no authorization or token endpoint in its discovery document.');
      }
      const page = inboxPage({
        clientId: settings.clientId,
        scopes: settings.scopes,
        redirectUri: `${settings.origin}/`,
        authorizationEndpoint: endpoints.authorizationEndpoint,
        tokenEndpoint: endpoints.tokenEndpoint,
        ...(endpoints.endSessionEndpoint ? { endSessionEndpoint: endpoints.endSessionEndpoint } : {}),
      });
      return { statusCode: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': page.contentSecurityPolicy, 'x-frame-options': 'DENY', ...SECURITY_HEADERS }, body: page.html };
    } catch (thrown) {
      if (thrown instanceof IssuerUnreachable) return error(503, 'unavailable', thrown.message);
      if ((thrown as Error)?.name === 'IssuerUnavailable') return error(503, 'unavailable', 'The sign-in provider could not be reached; try again.');
      console.error(JSON.stringify({ level: 'ERROR', message: 'approvals inbox failed', error: String(thrown) }));
      return error(500, 'internal', 'The inbox failed; see its logs.');
    }
  };

  async function apiRoute(event: LambdaFunctionURLEvent, method: string, path: string): Promise<HttpResult> {
    if (method === 'POST') {
      const origin = header(event, 'origin');
      if (origin !== settings.origin) {
        return error(403, 'forbidden_origin', 'A decision must come from the inbox page itself (its Origin); open the inbox and decide there.');
      }
    } else if (method !== 'GET') {
      return error(405, 'method_not_allowed', `${method} is not allowed here; use GET, or POST for a decision.`);
    }
    let approver: InboxApprover;
    try {
      approver = await oidcApprover(event, settings);
    } catch (thrown) {
      if (thrown instanceof Unauthenticated) return error(thrown.statusCode, 'unauthenticated', thrown.message);
      throw thrown;
    }
    const segments = path.split('/').filter((s) => s.length > 0);
    if (segments.length === 2 && segments[1] === 'me') {
      if (method !== 'GET') return error(405, 'method_not_allowed', `${method} is not allowed here; use GET.`);
      const owners = settings.handlers.filter((h) => approver.owners.includes(h.owner)).map((h) => ({ owner: h.owner, tools: h.tools }));
      return json(200, { approver: { id: approver.id, ...(approver.displayName ? { display_name: approver.displayName } : {}) }, owners });
    }
    if (segments[1] !== 'approvals') {
      return error(404, 'not_found', 'No such resource: the inbox serves /api/me, /api/approvals, /api/approvals/{id} and /api/approvals/{id}/decision.');
    }
    const query = { ...(event.queryStringParameters ?? {}) };
    const named = query.owner;
    delete query.owner;
    if (named === undefined && settings.handlers.length !== 1) {
      return error(400, 'bad_request', 'Name the owner: add ?owner=<owner> (this inbox serves several; /api/me lists those you may decide).');
    }
    const owner = named ?? settings.handlers[0].owner;
    const api = apis.get(owner);
    // Another owner's approvals, or one the approver may not decide, do not exist for this approver.
    if (!api || !approver.owners.includes(owner)) return error(404, 'not_found', 'No such owner among those you may decide.');
    const rawQueryString = new URLSearchParams(query as Record<string, string>).toString();
    const forwarded: LambdaFunctionURLEvent = {
      ...event,
      rawPath: `/${segments.slice(1).join('/')}`,
      rawQueryString,
      queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    };
    verified.set(forwarded, approver);
    const answer = await api(forwarded);
    return { ...answer, headers: { ...answer.headers, ...SECURITY_HEADERS } };
  }
}

function header(event: LambdaFunctionURLEvent, name: string): string | undefined {
  const entry = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return entry?.[1];
}

function json(statusCode: number, body: unknown): HttpResult {
  return { statusCode, headers: { 'content-type': 'application/json', ...SECURITY_HEADERS }, body: JSON.stringify(body) };
}

function error(statusCode: number, type: string, message: string): HttpResult {
  return json(statusCode, { error: { type, message } });
}

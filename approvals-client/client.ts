/** The approvals API (SPEC §9) as three calls, each reply checked and each error made readable. */
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { CliError } from '../console/errors';
import { escapeText } from '../console/escape';
import { ApiError } from './api-error';
import type { Endpoint } from './endpoint';
import type { ApprovalPage, ApprovalRecord, ApprovalStatus, DecisionBody } from './record';
import { signedFetch, type HttpReply } from './signed-fetch';

export const FORBIDDEN_HINT =
  'The function URL refused the request: the caller needs grantApprove on the approvals API ' +
  '(lambda:InvokeFunctionUrl and lambda:InvokeFunction through the URL), and credentials of that account ' +
  '(check AWS_PROFILE, and that the clock is right: signatures expire).';

/** Hints for the API's own error types. */
const TYPE_HINTS: Record<string, string> = {
  already_decided: 'Someone decided it first: see `approvals show ID`.',
  fingerprint_mismatch: 'The tool or args changed since they were read: run the command again to see them as they are now.',
  expired: 'It can no longer be decided.',
  not_found: 'See the ids there are with `approvals list` (`--status pending` for those waiting); DynamoDB deletes an approval from a day after it expired.',
};

export class ApprovalsClient {
  constructor(
    private readonly endpoint: Endpoint,
    private readonly credentials: AwsCredentialIdentityProvider,
  ) {}

  /** Every page of `GET /approvals`, following `next` until it is absent. */
  async listAll(input: { status?: ApprovalStatus; pageSize: number }): Promise<ApprovalRecord[]> {
    const all: ApprovalRecord[] = [];
    const seen = new Set<string>();
    let next: string | undefined;
    do {
      const url = this.url('approvals');
      if (input.status) url.searchParams.set('status', input.status);
      url.searchParams.set('limit', String(input.pageSize));
      if (next !== undefined) url.searchParams.set('next', next);
      const page = this.parse<ApprovalPage>(await this.send('GET', url));
      if (!Array.isArray(page.approvals)) throw new CliError('The approvals API answered a list without `approvals`.');
      all.push(...page.approvals);
      if (page.next !== undefined && seen.has(page.next)) throw new CliError('The approvals API repeated a `next` token: stopping.');
      next = page.next ?? undefined;
      if (next !== undefined) seen.add(next);
    } while (next !== undefined);
    return all;
  }

  async get(id: string): Promise<ApprovalRecord> {
    return this.parse<ApprovalRecord>(await this.send('GET', this.url(`approvals/${encodeURIComponent(id)}`)));
  }

  async decide(id: string, body: DecisionBody): Promise<ApprovalRecord> {
    const url = this.url(`approvals/${encodeURIComponent(id)}/decision`);
    return this.parse<ApprovalRecord>(await this.send('POST', url, body));
  }

  private url(path: string): URL {
    return new URL(path, this.endpoint.baseUrl);
  }

  private send(method: 'GET' | 'POST', url: URL, body?: unknown): Promise<HttpReply> {
    return signedFetch({ method, url, region: this.endpoint.region, credentials: this.credentials, body });
  }

  private parse<T>(reply: HttpReply): T {
    const json = parseJson(reply.text);
    if (reply.status >= 200 && reply.status < 300) {
      if (json === undefined || typeof json !== 'object' || json === null) {
        // The server's text on one line, escaped: only the CLI's own messages span lines.
        throw new CliError(`The approvals API answered ${reply.status} without a JSON object: ${escapeText(clip(reply.text))}`);
      }
      return json as T;
    }
    throw toApiError(reply.status, json, reply.text);
  }
}

function toApiError(status: number, json: unknown, text: string): ApiError {
  const error = (json as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
  if (error && typeof error === 'object') {
    const type = typeof error.type === 'string' ? error.type : undefined;
    const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
    return new ApiError(status, type, message, (type && TYPE_HINTS[type]) ?? (status === 403 ? FORBIDDEN_HINT : undefined));
  }
  // The function URL's own answers (`{"Message":"Forbidden"}`) and anything else.
  const urlMessage = (json as { Message?: unknown; message?: unknown } | undefined)?.Message ?? (json as { message?: unknown } | undefined)?.message;
  const message = typeof urlMessage === 'string' ? urlMessage : clip(text) || '(empty body)';
  return new ApiError(status, undefined, message, status === 403 ? FORBIDDEN_HINT : undefined);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

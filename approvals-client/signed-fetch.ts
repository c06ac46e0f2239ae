/**
 * One HTTP request to the function URL, signed with SigV4 for service `lambda` by the AWS SDK's own
 * signer (the payload's hash included), sent with the global `fetch`.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { CliError } from '../console/errors';

export interface SignedFetchInput {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly region: string;
  readonly credentials: AwsCredentialIdentityProvider;
  /** JSON, sent as `application/json`. */
  readonly body?: unknown;
  /** @default 30000 */
  readonly timeoutMs?: number;
  /** What the URL is, for the error when it cannot be reached. @default 'the approvals API' */
  readonly what?: string;
}

export interface HttpReply {
  readonly status: number;
  readonly text: string;
}

export async function signedFetch(input: SignedFetchInput): Promise<HttpReply> {
  const { url } = input;
  const body = input.body === undefined ? undefined : JSON.stringify(input.body);
  const query = queryOf(url);
  const request = new HttpRequest({
    method: input.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query,
    headers: {
      host: url.host,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
  const signer = new SignatureV4({ service: 'lambda', region: input.region, credentials: input.credentials, sha256: Sha256 });
  const signed = await signer.sign(request);
  // fetch sets Host itself, from the URL: the same value that was signed.
  const headers = Object.fromEntries(Object.entries(signed.headers).filter(([name]) => name.toLowerCase() !== 'host'));
  const target = `${url.origin}${url.pathname}${encodeQuery(query)}`;
  let response: Response;
  try {
    response = await fetch(target, {
      method: input.method,
      headers,
      body,
      signal: AbortSignal.timeout(input.timeoutMs ?? 30_000),
    });
  } catch (error) {
    throw new CliError(`Could not reach ${input.what ?? 'the approvals API'} at ${url.origin}: ${describeFetchError(error)}`);
  }
  return { status: response.status, text: await response.text() };
}

function queryOf(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = value;
  return query;
}

/** RFC 3986 encoding, as SigV4 canonicalizes it: a `+` in a `next` token stays a `+`, never a space. */
function encodeQuery(query: Record<string, string>): string {
  const pairs = Object.entries(query).map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`);
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function describeFetchError(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'no answer within the timeout';
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}

/**
 * Checks a request's SigV4 signature the way an AWS front end does: first that `Host` is this
 * endpoint on loopback (the local run is closed to other hosts), then the credential
 * scope (service, region, date), a 15-minute clock window, the payload's hash, and the signature
 * itself, recomputed with the AWS SDK's own signer from the secret of the access key the request
 * names. Used by every local endpoint: the function URL, the AWS APIs of local/endpoints.ts (Lambda,
 * EventBridge, SQS, Step Functions) and DynamoDB. Everything but the payload's hash and the signature is read from the headers alone
 * (`screenSigV4`), so that an endpoint refuses a request that cannot pass before it reads its body.
 *
 * A refusal's `reason` names what was wrong, never a value the request carried.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { isLoopbackHost } from './loopback-host';
import { parseQueryMulti } from './query-string';

export interface ReceivedRequest {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQueryString: string;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What the verifier knows of an access key. */
export interface SigningSecret {
  readonly secretAccessKey: string;
  /** When set, requests must carry it as `x-amz-security-token`. */
  readonly sessionToken?: string;
}

export interface SigV4Scope {
  /** `lambda`, `events`, `dynamodb`. */
  readonly service: string;
  readonly region: string;
  /** The endpoint's port on 127.0.0.1: a request whose `Host` is not `127.0.0.1:<port>` or `localhost:<port>` is invalid. */
  readonly port: number;
  /** The secret of an access key id, or `undefined` for a key this endpoint does not know. */
  secretOf(accessKeyId: string): SigningSecret | undefined;
}

/**
 * Why a request is refused: `unsigned` (no SigV4 `Authorization`), `unknown-key`, or `invalid` (any
 * other mismatch); `reason` says exactly what, for the local endpoints' diagnostic header.
 */
export type SigV4Verdict =
  | { readonly ok: true; readonly accessKeyId: string }
  | { readonly ok: false; readonly failure: 'unsigned' | 'unknown-key' | 'invalid'; readonly reason: string };

const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** What the headers alone say of a request that may pass: who signed it, and what the signature covers. */
export type SigV4Screen =
  | { readonly ok: true; readonly accessKeyId: string; readonly secret: SigningSecret; readonly signedHeaders: readonly string[]; readonly signingDate: Date }
  | Extract<SigV4Verdict, { ok: false }>;

/**
 * The checks a request's headers settle without its body: a loopback `Host`, the `Authorization`'s
 * shape, a known access key, the credential scope, the date and its clock window, and that `host`
 * and `x-amz-date` are signed. A request that fails here is refused without reading its body.
 */
export function screenSigV4(headers: Readonly<Record<string, string>>, scope: SigV4Scope): SigV4Screen {
  const invalid = (reason: string) => ({ ok: false, failure: 'invalid', reason }) as const;
  if (!isLoopbackHost(headers.host, scope.port)) return invalid(`Host is not 127.0.0.1:${scope.port} or localhost:${scope.port}`);
  const auth = AUTHORIZATION.exec(headers.authorization ?? '');
  if (!auth) return { ok: false, failure: 'unsigned', reason: 'missing or malformed Authorization' };
  const [, accessKeyId, scopeDate, scopeRegion, scopeService, signedHeaderList] = auth;
  const secret = scope.secretOf(accessKeyId);
  if (!secret) return { ok: false, failure: 'unknown-key', reason: 'unknown access key' };
  if (scopeService !== scope.service) return invalid(`signed for another service, not ${scope.service}`);
  if (scopeRegion !== scope.region) return invalid(`signed for another region, not ${scope.region}`);
  const amzDate = headers['x-amz-date'] ?? '';
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate || amzDate.slice(0, 8) !== scopeDate) return invalid('missing or bad x-amz-date');
  if (Math.abs(Date.now() - signingDate.getTime()) > MAX_SKEW_MS) return invalid('signature expired');
  const signedHeaders = signedHeaderList.split(';');
  for (const required of ['host', 'x-amz-date']) {
    if (!signedHeaders.includes(required)) return invalid(`${required} not signed`);
  }
  return { ok: true, accessKeyId, secret, signedHeaders, signingDate };
}

export async function verifySigV4(request: ReceivedRequest, scope: SigV4Scope): Promise<SigV4Verdict> {
  const screen = screenSigV4(request.headers, scope);
  if (!screen.ok) return screen;
  const { accessKeyId, secret, signedHeaders, signingDate } = screen;
  const invalid = (reason: string): SigV4Verdict => ({ ok: false, failure: 'invalid', reason });
  const bodyHash = createHash('sha256').update(request.body).digest('hex');
  const claimedHash = request.headers['x-amz-content-sha256'];
  if (claimedHash !== undefined && claimedHash !== bodyHash) return invalid('x-amz-content-sha256 does not match the body');
  if (secret.sessionToken !== undefined && request.headers['x-amz-security-token'] !== secret.sessionToken) {
    return invalid('missing or wrong session token');
  }

  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return invalid('a signed header is absent');
    headers[name] = value;
  }
  const [hostname, port] = (headers.host ?? '').split(':');
  const toSign = new HttpRequest({
    method: request.method,
    protocol: 'http:',
    hostname,
    port: port ? Number(port) : undefined,
    path: request.rawPath,
    query: parseQueryMulti(request.rawQueryString),
    headers,
    body: request.body,
  });
  const signer = new SignatureV4({
    service: scope.service,
    region: scope.region,
    sha256: Sha256,
    applyChecksum: false, // the payload hash is the signed header's (checked above) or the body's
    credentials: {
      accessKeyId,
      secretAccessKey: secret.secretAccessKey,
      ...(headers['x-amz-security-token'] ? { sessionToken: headers['x-amz-security-token'] } : {}),
    },
  });
  const expected = await signer.sign(toSign, { signingDate, signableHeaders: new Set(signedHeaders) });
  if (!sameText(String(expected.headers.authorization), request.headers.authorization ?? '')) return invalid('signature does not match');
  return { ok: true, accessKeyId };
}

/** Whether `a` and `b` are the same text, compared in constant time. */
export function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

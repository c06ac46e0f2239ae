/**
 * A stand-in for a Lambda function URL with `AWS_IAM` auth, on 127.0.0.1 (a free port): what
 * `cdk-tool-handler local` puts in front of the approvals API (the tests' helper of the same logic is
 * test/support/function-url-host.ts).
 *
 * Like the real URL it verifies each request's SigV4 signature (service `lambda`, the host's region,
 * the payload's hash, a 15-minute clock window) and answers 403 `{"Message":"Forbidden"}` to an
 * unknown access key or a bad signature. A signed request becomes a payload format 2.0 event whose
 * `requestContext.authorizer.iam` names the signer, is passed to `handler`, and the handler's
 * function-URL response (`{ statusCode, headers, body }`, or any other value, which Lambda sends as
 * 200 JSON) is written back. A handler that throws gives 502 `{"Message":"Internal Server Error"}`.
 *
 * The reason for a 403 is in the response header `x-local-forbidden-reason` (the real URL says nothing).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

/** A caller the URL knows: its secret, and who it is. */
export interface KnownCaller {
  readonly secretAccessKey: string;
  /** `requestContext.authorizer.iam.userArn`, e.g. `arn:aws:iam::111122223333:user/alice`. */
  readonly userArn: string;
  /** `userId` and `callerId`. @default - derived from the access key id */
  readonly userId?: string;
  /** When set, requests must carry it as `x-amz-security-token`. @default - none required */
  readonly sessionToken?: string;
}

export interface FunctionUrlResult {
  readonly statusCode?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
  readonly cookies?: string[];
}

export type FunctionUrlHandler = (event: FunctionUrlEvent) => Promise<unknown>;

export interface FunctionUrlHostOptions {
  readonly handler: FunctionUrlHandler;
  /** Access key id → caller. */
  readonly credentials: Readonly<Record<string, KnownCaller>>;
  /** The region requests must be signed for. @default 'us-east-1' */
  readonly region?: string;
  /** The function owner's account (`requestContext.accountId`). @default '123456789012' */
  readonly accountId?: string;
  /** Called with a handler's error before the 502 (tests can fail on it). @default - ignored */
  readonly onHandlerError?: (error: unknown) => void;
}

export interface FunctionUrlHost {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** Every event given to the handler, in order. */
  readonly events: FunctionUrlEvent[];
  close(): Promise<void>;
}

/** Payload format 2.0, as a function URL sends it. */
export interface FunctionUrlEvent {
  readonly version: '2.0';
  readonly routeKey: '$default';
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly cookies?: string[];
  readonly headers: Record<string, string>;
  readonly queryStringParameters?: Record<string, string>;
  readonly requestContext: {
    readonly accountId: string;
    readonly apiId: string;
    readonly authorizer: {
      readonly iam: {
        readonly accessKey: string;
        readonly accountId: string;
        readonly callerId: string;
        readonly cognitoIdentity: null;
        readonly principalOrgId: null;
        readonly userArn: string;
        readonly userId: string;
      };
    };
    readonly domainName: string;
    readonly domainPrefix: string;
    readonly http: {
      readonly method: string;
      readonly path: string;
      readonly protocol: string;
      readonly sourceIp: string;
      readonly userAgent: string;
    };
    readonly requestId: string;
    readonly routeKey: '$default';
    readonly stage: '$default';
    readonly time: string;
    readonly timeEpoch: number;
  };
  readonly body?: string;
  readonly pathParameters?: undefined;
  readonly isBase64Encoded: boolean;
  readonly stageVariables?: undefined;
}

const API_ID = 'localurlhost0000000000000000000';
const MAX_SKEW_MS = 15 * 60 * 1000;

export async function startFunctionUrlHost(options: FunctionUrlHostOptions): Promise<FunctionUrlHost> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '123456789012';
  const events: FunctionUrlEvent[] = [];

  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      options.onHandlerError?.(error);
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, '{"Message":"Internal Server Error"}');
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const rawPath = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
    const rawQueryString = queryAt < 0 ? '' : rawUrl.slice(queryAt + 1);
    const headers = joinHeaders(req);

    const verdict = await verify({ method: req.method ?? 'GET', rawPath, rawQueryString, headers, body });
    if (!verdict.ok) {
      send(res, 403, { 'content-type': 'application/json', 'x-local-forbidden-reason': verdict.reason }, '{"Message":"Forbidden"}');
      return;
    }

    const now = new Date();
    const host = headers.host ?? '127.0.0.1';
    const domainName = host.replace(/:\d+$/, '');
    const query = parseQuery(rawQueryString);
    const event: FunctionUrlEvent = {
      version: '2.0',
      routeKey: '$default',
      rawPath,
      rawQueryString,
      headers,
      ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
      requestContext: {
        accountId,
        apiId: API_ID,
        authorizer: {
          iam: {
            accessKey: verdict.accessKeyId,
            accountId: accountOf(verdict.caller.userArn),
            callerId: verdict.userId,
            cognitoIdentity: null,
            principalOrgId: null,
            userArn: verdict.caller.userArn,
            userId: verdict.userId,
          },
        },
        domainName,
        domainPrefix: domainName.split('.')[0],
        http: {
          method: req.method ?? 'GET',
          path: rawPath,
          protocol: `HTTP/${req.httpVersion}`,
          sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
          userAgent: headers['user-agent'] ?? '',
        },
        requestId: randomUUID(),
        routeKey: '$default',
        stage: '$default',
        time: clfTime(now),
        timeEpoch: now.getTime(),
      },
      ...(body.length > 0 ? { body } : {}),
      isBase64Encoded: false,
    };
    events.push(event);

    let result: unknown;
    try {
      result = await options.handler(event);
    } catch (error) {
      options.onHandlerError?.(error);
      send(res, 502, { 'content-type': 'application/json' }, '{"Message":"Internal Server Error"}');
      return;
    }
    const reply = toResponse(result);
    send(res, reply.statusCode, reply.headers, reply.body);
  }

  async function verify(request: {
    method: string;
    rawPath: string;
    rawQueryString: string;
    headers: Record<string, string>;
    body: string;
  }): Promise<{ ok: true; accessKeyId: string; caller: KnownCaller; userId: string } | { ok: false; reason: string }> {
    const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      request.headers.authorization ?? '',
    );
    if (!auth) return { ok: false, reason: 'missing or malformed Authorization' };
    const [, accessKeyId, scopeDate, scopeRegion, scopeService, signedHeaderList] = auth;
    const caller = options.credentials[accessKeyId];
    if (!caller) return { ok: false, reason: `unknown access key ${accessKeyId}` };
    if (scopeService !== 'lambda') return { ok: false, reason: `signed for service ${scopeService}, not lambda` };
    if (scopeRegion !== region) return { ok: false, reason: `signed for region ${scopeRegion}, not ${region}` };
    const amzDate = request.headers['x-amz-date'] ?? '';
    const signingDate = parseAmzDate(amzDate);
    if (!signingDate || amzDate.slice(0, 8) !== scopeDate) return { ok: false, reason: 'missing or bad x-amz-date' };
    if (Math.abs(Date.now() - signingDate.getTime()) > MAX_SKEW_MS) return { ok: false, reason: 'signature expired' };
    const signedHeaders = signedHeaderList.split(';');
    for (const required of ['host', 'x-amz-date']) {
      if (!signedHeaders.includes(required)) return { ok: false, reason: `${required} not signed` };
    }
    const bodyHash = createHash('sha256').update(request.body).digest('hex');
    const claimedHash = request.headers['x-amz-content-sha256'];
    if (claimedHash !== undefined && claimedHash !== bodyHash) return { ok: false, reason: 'x-amz-content-sha256 does not match the body' };
    if (caller.sessionToken !== undefined && request.headers['x-amz-security-token'] !== caller.sessionToken) {
      return { ok: false, reason: 'missing or wrong session token' };
    }

    const headers: Record<string, string> = {};
    for (const name of signedHeaders) {
      const value = request.headers[name];
      if (value === undefined) return { ok: false, reason: `signed header ${name} is absent` };
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
      service: 'lambda',
      region,
      sha256: Sha256,
      applyChecksum: false, // the payload hash is the signed header's (checked above) or the body's
      credentials: {
        accessKeyId,
        secretAccessKey: caller.secretAccessKey,
        ...(headers['x-amz-security-token'] ? { sessionToken: headers['x-amz-security-token'] } : {}),
      },
    });
    const expected = await signer.sign(toSign, { signingDate, signableHeaders: new Set(signedHeaders) });
    if (expected.headers.authorization !== request.headers.authorization) return { ok: false, reason: 'signature does not match' };
    return { ok: true, accessKeyId, caller, userId: caller.userId ?? `AIDA${accessKeyId.replace(/[^A-Z0-9]/gi, '').toUpperCase()}` };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    events,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A function URL response; a value without `statusCode` is sent as 200 JSON, as Lambda does. */
function toResponse(result: unknown): { statusCode: number; headers: Record<string, string>; body: string } {
  const r = result as FunctionUrlResult | undefined;
  if (r && typeof r === 'object' && typeof r.statusCode === 'number') {
    const body = r.body === undefined ? '' : r.isBase64Encoded ? Buffer.from(r.body, 'base64').toString('utf8') : r.body;
    return { statusCode: r.statusCode, headers: { ...(r.headers ?? {}) }, body };
  }
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result ?? null) };
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, headers);
  res.end(body);
}

/** The whole body of a request, as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Lower-cased names; repeated headers joined with commas (as the 2.0 payload does). */
function joinHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1];
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  return headers;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function queryPairs(raw: string): Array<[string, string]> {
  if (raw === '') return [];
  return raw.split('&').map((pair) => {
    const at = pair.indexOf('=');
    return at < 0 ? [decode(pair), ''] : [decode(pair.slice(0, at)), decode(pair.slice(at + 1))];
  });
}

/** `queryStringParameters`: repeated names joined with commas. */
function parseQuery(raw: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of queryPairs(raw)) query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  return query;
}

/** For the signer: repeated names as arrays. */
function parseQueryMulti(raw: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of queryPairs(raw)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `12/Mar/2020:19:03:58 +0000`, the payload's `time`. */
function clfTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

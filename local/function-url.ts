/**
 * A stand-in for a Lambda function URL with `AWS_IAM` auth, on 127.0.0.1 (a free port): what
 * `cdk-tool-handler local` puts in front of the approvals API, and what the CLI's tests serve their
 * approvals APIs behind.
 *
 * Like the real URL it verifies each request's SigV4 signature (local/sigv4.ts: service `lambda`, the
 * host's region, the payload's hash, a 15-minute clock window) and answers 403
 * `{"Message":"Forbidden"}` to an unknown access key or a bad signature; and to a `Host` other than
 * 127.0.0.1 or localhost with its port (local/loopback-host.ts). A signed request becomes a payload
 * format 2.0 event whose `requestContext.authorizer.iam` names the signer, is passed to `handler`, and the handler's
 * function-URL response (`{ statusCode, headers, body }`, or any other value, which Lambda sends as
 * 200 JSON) is written back. A handler that throws gives 502 `{"Message":"Internal Server Error"}`.
 *
 * The reason for a 403 is in the response header `x-local-forbidden-reason` (the real URL says nothing).
 * A request whose headers cannot pass (unsigned, an unknown key, another host) is refused before its
 * body is read, and a body over Lambda's 6 MB payload quota (local/body-limits.ts) is a 413 that is
 * not read past the limit; both close the connection.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { FUNCTION_URL_BODY_LIMIT } from './body-limits';
import { answerAndClose, joinHeaders, readBody, splitUrl } from './http-request';
import { listenOnLoopback } from './loopback-server';
import { parseQuery } from './query-string';
import { screenSigV4, verifySigV4, type ReceivedRequest, type SigV4Scope } from './sigv4';

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

export async function startFunctionUrlHost(options: FunctionUrlHostOptions): Promise<FunctionUrlHost> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '123456789012';
  const events: FunctionUrlEvent[] = [];
  let port = 0;

  const server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      options.onHandlerError?.(error);
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, '{"Message":"Internal Server Error"}');
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
    const headers = joinHeaders(req);
    const forbidden = (reason: string) =>
      answerAndClose(res, 403, { 'content-type': 'application/json', 'x-local-forbidden-reason': reason }, '{"Message":"Forbidden"}');

    const screen = screenSigV4(headers, scope());
    if (!screen.ok) return forbidden(screen.reason);
    const bytes = await readBody(req, FUNCTION_URL_BODY_LIMIT);
    if (bytes === undefined) return answerAndClose(res, 413, { 'content-type': 'application/json' }, '{"Message":"Request Entity Too Large"}');
    const body = bytes.toString('utf8');
    const verdict = await verify({ method: req.method ?? 'GET', rawPath, rawQueryString, headers, body });
    if (!verdict.ok) return forbidden(verdict.reason);

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

  function known(accessKeyId: string): KnownCaller | undefined {
    return Object.hasOwn(options.credentials, accessKeyId) ? options.credentials[accessKeyId] : undefined;
  }

  function scope(): SigV4Scope {
    return { service: 'lambda', region, port, secretOf: known };
  }

  async function verify(
    request: ReceivedRequest,
  ): Promise<{ ok: true; accessKeyId: string; caller: KnownCaller; userId: string } | { ok: false; reason: string }> {
    const verdict = await verifySigV4(request, scope());
    if (!verdict.ok) return verdict;
    const { accessKeyId } = verdict;
    const caller = known(accessKeyId)!;
    return { ok: true, accessKeyId, caller, userId: caller.userId ?? `AIDA${accessKeyId.replace(/[^A-Z0-9]/gi, '').toUpperCase()}` };
  }

  const listening = await listenOnLoopback(server);
  port = listening.port;
  return { url: `${listening.url}/`, events, close: () => listening.close() };
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

function accountOf(arn: string): string {
  return arn.split(':')[4] ?? '';
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `12/Mar/2020:19:03:58 +0000`, the payload's `time`. */
function clfTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

/**
 * A stand-in for an API Gateway HTTP API with one Lambda integration (payload format 2.0), on
 * 127.0.0.1: what `cdk-tool-handler local` puts in front of the approvals inbox, and what the
 * inbox's tests open in a browser. Every request becomes the event the HTTP API would send; the
 * function checks tokens itself, so no authorizer stands in front. A `Host` other than 127.0.0.1 or
 * localhost with its port is refused (403) before the body is read; a body over the HTTP API's
 * 10 MB limit is a 413.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { answerAndClose, joinHeaders, readBody, splitUrl } from './http-request';
import { isLoopbackHost } from './loopback-host';
import { listenOnLoopback } from './loopback-server';
import { parseQuery } from './query-string';

/** The HTTP API's payload limit. */
const HTTP_API_BODY_LIMIT = 10 * 1024 * 1024;

export interface HttpApiResult {
  readonly statusCode?: number;
  readonly headers?: Record<string, string | number | boolean>;
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
}

export interface HttpApiHost {
  /** `http://127.0.0.1:<port>` (no trailing slash): the API's origin. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startHttpApiHost(handler: (event: any) => Promise<HttpApiResult>): Promise<HttpApiHost> {
  let port = 0;
  const server = createServer((req, res) => {
    void (async () => {
      if (!isLoopbackHost(req.headers.host, port)) {
        answerAndClose(res, 403, { 'content-type': 'application/json' }, '{"message":"Forbidden"}');
        return;
      }
      const body = await readBody(req, HTTP_API_BODY_LIMIT);
      if (body === undefined) {
        answerAndClose(res, 413, { 'content-type': 'application/json' }, '{"message":"Request Entity Too Large"}');
        return;
      }
      const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
      const headers = joinHeaders(req);
      const now = new Date();
      const event = {
        version: '2.0',
        routeKey: '$default',
        rawPath,
        rawQueryString,
        headers,
        ...(rawQueryString ? { queryStringParameters: parseQuery(rawQueryString) } : {}),
        requestContext: {
          accountId: '123456789012',
          apiId: 'localhttpapi',
          domainName: `127.0.0.1:${port}`,
          domainPrefix: '127',
          http: { method: req.method ?? 'GET', path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
          requestId: randomUUID(),
          routeKey: '$default',
          stage: '$default',
          time: now.toUTCString(),
          timeEpoch: now.getTime(),
        },
        ...(body.length > 0 ? { body: body.toString('base64'), isBase64Encoded: true } : { isBase64Encoded: false }),
      };
      let result: HttpApiResult;
      try {
        result = await handler(event);
      } catch {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"message":"Internal Server Error"}');
        return;
      }
      const out = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
      res.writeHead(result.statusCode ?? 200, { ...result.headers, 'content-length': out.length });
      res.end(req.method === 'HEAD' ? undefined : out);
    })().catch(() => {
      if (!res.headersSent) answerAndClose(res, 500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
    });
  });
  const listening = await listenOnLoopback(server);
  port = listening.port;
  return { url: listening.url, close: () => listening.close() };
}

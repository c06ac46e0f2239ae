/**
 * The embedded DynamoDB's only door: an endpoint on 127.0.0.1 that checks each request as DynamoDB's
 * front end would, then passes it to dynalite, which listens where no one else can reach it (a Unix
 * socket in a private directory, local/dynamo.ts). It answers only requests with a loopback `Host`,
 * SigV4-signed (service `dynamodb`, the run's region) by the keys of the run's own functions, and
 * with no `Origin` header: there is no CORS at all, so a web page on this machine cannot reach it
 * (a preflight is refused like any other request with an `Origin`, and no `Access-Control-*` header
 * dynalite might add is passed on). What the headers alone refuse is refused before the body is
 * read; a body is read up to DynamoDB's own 16 MB (local/body-limits.ts), no further. A refusal is
 * DynamoDB's JSON 1.0 error (`__type`, `message`, HTTP 400), and repeats nothing the request carried.
 */
import { Agent, createServer, request, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { DYNAMODB_BODY_LIMIT } from './body-limits';
import { authenticate, screen, type Refusal, type SigningKeys } from './endpoint-access';
import { answerAndClose, AWS_JSON_1_0, joinHeaders, readBody, splitUrl } from './http-request';
import { listenOnLoopback } from './loopback-server';

export interface DynamoFront {
  /** `http://127.0.0.1:<port>`: what the functions get as `AWS_ENDPOINT_URL_DYNAMODB`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request: never passed on, either way. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect']);

const NO_ORIGIN: Refusal = {
  type: 'AccessDeniedException',
  message: 'The local DynamoDB answers no web page: a request with an Origin header is refused (it has no CORS).',
  reason: 'a request with an Origin header (no CORS)',
};

/** Starts the checked endpoint in front of the dynalite listening at `socketPath`. */
export async function startDynamoFront(socketPath: string, access: SigningKeys): Promise<DynamoFront> {
  const agent = new Agent({ keepAlive: true });
  let port = 0;
  const server = createServer((req, res) => {
    void serve(req, res, { socketPath, agent, access, port }).catch(() => {
      if (!res.headersSent) answer(res, 500, 'InternalServerError', 'local: the embedded DynamoDB failed to answer');
      else res.destroy();
    });
  });
  const listening = await listenOnLoopback(server);
  port = listening.port;
  return {
    url: listening.url,
    close: async () => {
      agent.destroy();
      await listening.close();
    },
  };
}

interface Backend {
  readonly socketPath: string;
  readonly agent: Agent;
  readonly access: SigningKeys;
  readonly port: number;
}

async function serve(req: IncomingMessage, res: ServerResponse, backend: Backend): Promise<void> {
  const headers = joinHeaders(req);
  if (headers.origin !== undefined) return refuse(res, NO_ORIGIN);
  const screened = screen(headers, 'dynamodb', backend.port, backend.access);
  if (screened) return refuse(res, screened);
  const body = await readBody(req, DYNAMODB_BODY_LIMIT);
  if (body === undefined) {
    answer(res, 413, 'RequestEntityTooLargeException', `Request must be smaller than ${DYNAMODB_BODY_LIMIT} bytes`);
    return;
  }
  const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
  const request = { method: req.method ?? 'GET', rawPath, rawQueryString, headers, body: body.toString('utf8') };
  const signer = await authenticate(request, 'dynamodb', backend.port, backend.access);
  if ('refused' in signer) return refuse(res, signer.refused);
  await pass(req.method ?? 'GET', req.url ?? '/', headers, body, res, backend);
}

/** Passes a checked request to dynalite and its answer back, without any CORS header. */
function pass(method: string, url: string, headers: Record<string, string>, body: Buffer, res: ServerResponse, backend: Backend): Promise<void> {
  const sent: OutgoingHttpHeaders = { 'content-length': body.length };
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name) && name !== 'content-length') sent[name] = value;
  return new Promise((resolve, reject) => {
    const forwarded = request({ socketPath: backend.socketPath, agent: backend.agent, method, path: url, headers: sent }, (answered) => {
      const back: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answered.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name) && !name.startsWith('access-control-')) back[name] = value;
      }
      res.writeHead(answered.statusCode ?? 502, back);
      answered.pipe(res);
      answered.once('end', resolve);
      answered.once('error', reject);
    });
    forwarded.once('error', reject);
    forwarded.end(body);
  });
}

/** A refusal as DynamoDB words it (HTTP 400, JSON 1.0), with local's reason in a header of its own. */
function refuse(res: ServerResponse, refusal: Refusal): void {
  answer(res, 400, refusal.type, refusal.message, { 'x-local-forbidden-reason': refusal.reason });
}

/** A DynamoDB error (`com.amazon.coral.service#<type>`), closing the connection: a body not read yet is never read. */
function answer(res: ServerResponse, status: number, type: string, message: string, headers: OutgoingHttpHeaders = {}): void {
  const body = JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message });
  answerAndClose(res, status, { 'content-type': AWS_JSON_1_0, ...headers }, body);
}

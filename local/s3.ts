/**
 * S3 as the handler uses it for offloaded results (`resultOffload`), on 127.0.0.1: PutObject,
 * signed by a key the run knows (the handler's), and GET through a presigned URL, whose query
 * signature is recomputed with the SDK's own signer and whose expiry is enforced. Objects are kept
 * in memory for the run. Path-style (`/<bucket>/<key>`): the runtime's client goes path-style when
 * `AWS_ENDPOINT_URL_S3` is set. Nothing else is served.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { authenticate, screen, type SigningKeys } from './endpoint-access';
import { answerAndClose, joinHeaders, readBody, splitUrl } from './http-request';
import { listenOnLoopback } from './loopback-server';
import { parseQueryMulti } from './query-string';
import { sameText } from './sigv4';

/** The largest object it takes: the 6 MB a result may reach, and room. */
const PUT_BODY_LIMIT = 8 * 1024 * 1024;
/** SigV4's longest presigned life. */
const MAX_EXPIRES_S = 7 * 24 * 3600;

export interface LocalS3 {
  readonly url: string;
  /** The objects put, by `<bucket>/<key>`. */
  readonly objects: ReadonlyMap<string, Buffer>;
  close(): Promise<void>;
}

export async function startS3(access: SigningKeys): Promise<LocalS3> {
  const objects = new Map<string, Buffer>();
  let port = 0;
  const server = createServer((req, res) => {
    void serve(req, res, { objects, access, port }).catch((error: unknown) => {
      if (!res.headersSent) xml(res, 500, 'InternalError', String(error));
    });
  });
  const listening = await listenOnLoopback(server);
  port = listening.port;
  return { url: listening.url, objects, close: () => listening.close() };
}

interface Serving {
  readonly objects: Map<string, Buffer>;
  readonly access: SigningKeys;
  readonly port: number;
}

async function serve(req: IncomingMessage, res: ServerResponse, { objects, access, port }: Serving): Promise<void> {
  const { rawPath, rawQueryString } = splitUrl(req.url ?? '/');
  const headers = joinHeaders(req);
  const name = decodeURIComponent(rawPath.slice(1));
  if (req.method === 'PUT') {
    const refused = screen(headers, 's3', port, access);
    if (refused) return xml(res, 403, 'AccessDenied', refused.message, true);
    const body = await readBody(req, PUT_BODY_LIMIT);
    if (body === undefined) return xml(res, 400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', true);
    const signer = await authenticate({ method: 'PUT', rawPath, rawQueryString, headers, body: body.toString('utf8') }, 's3', port, access);
    if ('refused' in signer) return xml(res, 403, 'SignatureDoesNotMatch', signer.refused.message, true);
    objects.set(name, body);
    res.writeHead(200, { etag: '"local"' });
    res.end();
    return;
  }
  if (req.method === 'GET') {
    const refused = await presignRefusal(req.method, rawPath, rawQueryString, headers, access);
    if (refused) return xml(res, 403, 'AccessDenied', refused, true);
    const object = objects.get(name);
    if (!object) return xml(res, 404, 'NoSuchKey', 'The specified key does not exist.');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': object.length });
    res.end(object);
    return;
  }
  xml(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', true);
}

/** Why a presigned GET is refused (no query signature, unknown key, expired, wrong signature), or `undefined`. */
async function presignRefusal(
  method: string,
  rawPath: string,
  rawQueryString: string,
  headers: Record<string, string>,
  access: SigningKeys,
): Promise<string | undefined> {
  const query = parseQueryMulti(rawQueryString);
  const one = (key: string) => (typeof query[key] === 'string' ? (query[key] as string) : undefined);
  const credential = one('X-Amz-Credential')?.split('/') ?? [];
  const [accessKeyId, , region, service] = credential;
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(one('X-Amz-Date') ?? '');
  const expires = Number(one('X-Amz-Expires'));
  const signature = one('X-Amz-Signature');
  if (one('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256' || !date || !signature || credential.length !== 5) return 'Request is not presigned.';
  const secret = access.keys.get(accessKeyId);
  if (secret === undefined || region !== access.region || service !== 's3') return 'The presigned URL names no key of this run.';
  const signingDate = new Date(Date.UTC(+date[1], +date[2] - 1, +date[3], +date[4], +date[5], +date[6]));
  if (!Number.isInteger(expires) || expires < 1 || expires > MAX_EXPIRES_S) return 'X-Amz-Expires must be 1 to 604800 seconds.';
  if (Date.now() > signingDate.getTime() + expires * 1000) return 'Request has expired';
  const [hostname, port] = (headers.host ?? '').split(':');
  const unsigned = { ...query };
  delete unsigned['X-Amz-Signature'];
  const signer = new SignatureV4({ service: 's3', region, sha256: Sha256, uriEscapePath: false, credentials: { accessKeyId, secretAccessKey: secret } });
  const expected = await signer.presign(
    new HttpRequest({ method, protocol: 'http:', hostname, port: port ? Number(port) : undefined, path: rawPath, query: stripAuth(unsigned), headers: { host: headers.host ?? '', 'X-Amz-Content-Sha256': one('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD' } }),
    { signingDate, expiresIn: expires },
  );
  return sameText(String(expected.query?.['X-Amz-Signature']), signature) ? undefined : 'The request signature we calculated does not match the signature you provided.';
}

/** The query without the presign parameters the signer adds again. */
function stripAuth(query: Record<string, string | string[] | null>): Record<string, string | string[] | null> {
  const rest: Record<string, string | string[] | null> = {};
  for (const [key, value] of Object.entries(query)) if (!key.startsWith('X-Amz-')) rest[key] = value;
  return rest;
}

function xml(res: ServerResponse, status: number, code: string, message: string, close = false): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message.replace(/[<&>]/g, '')}</Message></Error>`;
  if (close) answerAndClose(res, status, { 'content-type': 'application/xml' }, body);
  else {
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(body);
  }
}

/** Reading a request on the local servers: its body and its headers, as AWS's front ends see them. */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * The body of a request, or `undefined` when it is larger than `limit` bytes. A `Content-Length`
 * over the limit is refused before a byte is read; a body without one (chunked) is read until it
 * passes the limit, and no further: what arrived is dropped and the stream is left paused. Answer a
 * refusal with `answerAndClose`, so that the connection and the rest of the body go with it.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.pause();
      chunks.length = 0;
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new Error('the client closed the connection before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Writes a whole answer and closes the connection after it: for a refusal sent before (or instead
 * of) reading the body, whose unread rest must not be read to keep the connection alive.
 */
export function answerAndClose(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: string): void {
  res.writeHead(status, { ...headers, connection: 'close' });
  res.end(body);
}

/** The content types of AWS's JSON protocols, 1.0 (DynamoDB, SQS, Step Functions) and 1.1 (EventBridge, KMS). */
export const AWS_JSON_1_0 = 'application/x-amz-json-1.0';
export const AWS_JSON_1_1 = 'application/x-amz-json-1.1';

/** A JSON answer (`type` names the protocol: AWS's JSON 1.0 and 1.1 have content types of their own). */
export function answerJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body ?? null));
}

/** A request body as a JSON object, or `undefined` when it is not one (the caller words the error as its API does). */
export function jsonObjectOf<T>(body: string): T | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Lower-cased names; repeated headers joined with commas (as the 2.0 payload does). */
export function joinHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1];
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  return headers;
}

/** A request's path and raw query string, split at the first `?`. */
export function splitUrl(rawUrl: string): { rawPath: string; rawQueryString: string } {
  const queryAt = rawUrl.indexOf('?');
  return queryAt < 0 ? { rawPath: rawUrl, rawQueryString: '' } : { rawPath: rawUrl.slice(0, queryAt), rawQueryString: rawUrl.slice(queryAt + 1) };
}

/** Reading a request on the local servers: its body and its headers, as AWS's front ends see them. */
import type { IncomingMessage } from 'node:http';

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

/**
 * What another process on the machine can send a local run's endpoints: any request, unsigned or
 * signed with any keys, with any `Host` header (`fetch` cannot set one, `node:http` can).
 */
import { request } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

export interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

export interface RawRequest {
  /** `http://127.0.0.1:<port>`: where the request goes, whatever its `Host` says. */
  readonly origin: string;
  readonly method?: 'GET' | 'POST' | 'OPTIONS';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface Keys {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export function sendRaw(input: RawRequest): Promise<RawReply> {
  const url = new URL(input.path, input.origin);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: input.method ?? 'POST', headers: input.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(input.body);
  });
}

/** A request to sign with SigV4 by `keys` for `service` (`lambda`, `events`, `dynamodb`), for `host` (default: the origin's). */
export interface SignedRequest extends RawRequest {
  readonly keys: Keys;
  readonly service: string;
  readonly region: string;
  readonly host?: string;
}

/** The same request signed with SigV4 by `keys`, for `host` (default: the origin's). */
export async function sendSigned(
  input: SignedRequest,
): Promise<RawReply> {
  const origin = new URL(input.origin);
  const host = input.host ?? origin.host;
  const url = new URL(input.path, input.origin);
  const signer = new SignatureV4({ service: input.service, region: input.region, credentials: input.keys, sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({
      method: input.method ?? 'POST',
      protocol: 'http:',
      hostname: host.replace(/:\d+$/, ''),
      path: url.pathname,
      headers: { ...input.headers, host },
      body: input.body,
    }),
  );
  return sendRaw({ ...input, headers: signed.headers as Record<string, string> });
}

/**
 * An oversized request body, as a process that wants to exhaust a server's memory sends it: 256 MB
 * in 1 MB chunks, written only as fast as the server takes them (so what was sent is what the
 * server let in), with or without a declared `Content-Length`. What it measures is how much was
 * sent before the server closed the connection, never how long anything took.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Keys } from './raw-aws-request';

export const MB = 1024 * 1024;
export const FLOOD_BYTES = 256 * MB;
const CHUNK = Buffer.alloc(MB, 'a');

export interface Flooded {
  /** Bytes of the body written before the server closed the connection (all of them when it never did). */
  readonly sent: number;
  /** The answer's status, when it arrived before the connection closed. */
  readonly status?: number;
  /** Whether the server closed the connection (rather than reading the whole body and keeping it open). */
  readonly closed: boolean;
}

/** Streams the 256 MB body to `url` (POST) until the server closes the connection or all of it is sent. */
export function flood(url: string, headers: Record<string, string>): Promise<Flooded> {
  const target = new URL(url);
  // A keep-alive client, as the SDKs are: a server that drains the body to reuse the connection would read it all.
  const agent = new Agent({ keepAlive: true });
  return new Promise((resolve) => {
    let sent = 0;
    let status: number | undefined;
    let settled = false;
    let bodyEnded = false;
    let answerEnded = false;
    const req = request({ hostname: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: 'POST', headers, agent });
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      req.destroy();
      agent.destroy();
      resolve({ sent, status, closed });
    };
    req.on('socket', (socket) => socket.once('close', () => settle(true)));
    req.on('error', () => settle(true));
    // The whole body sent and the answer read, on a connection the server kept open: it read everything.
    const readItAll = () => {
      if (bodyEnded && answerEnded) settle(false);
    };
    req.on('response', (res) => {
      status = res.statusCode;
      res.resume();
      res.once('end', () => {
        answerEnded = true;
        readItAll();
      });
    });
    const pump = () => {
      while (!settled && sent < FLOOD_BYTES) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) {
          req.once('drain', pump);
          return;
        }
      }
      if (settled) return;
      req.end();
      bodyEnded = true;
      readItAll();
    };
    pump();
  });
}

/** Sends only the headers of a request that declares a 256 MB body, and returns the answer's status. */
export function declareOnly(url: string, headers: Record<string, string>): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      hostname: target.hostname,
      port: target.port,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: { ...headers, 'content-length': String(FLOOD_BYTES) },
      agent: false,
    });
    req.on('response', (res) => {
      res.resume();
      req.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/** The SHA-256 of the 256 MB body, for a signature that covers it. */
export function floodHash(): string {
  const hash = createHash('sha256');
  for (let i = 0; i < FLOOD_BYTES / MB; i++) hash.update(CHUNK);
  return hash.digest('hex');
}

/** SigV4 headers for a POST to `url` by `keys`, whose payload hash is `payloadHash`. */
export async function signedHeaders(
  url: string,
  input: { readonly keys: Keys; readonly service: string; readonly region: string; readonly headers: Record<string, string>; readonly payloadHash: string },
): Promise<Record<string, string>> {
  const target = new URL(url);
  const signer = new SignatureV4({ service: input.service, region: input.region, credentials: input.keys, sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({
      method: 'POST',
      protocol: 'http:',
      hostname: target.hostname,
      port: Number(target.port),
      path: target.pathname,
      headers: { ...input.headers, host: target.host, 'x-amz-content-sha256': input.payloadHash },
    }),
  );
  return signed.headers as Record<string, string>;
}

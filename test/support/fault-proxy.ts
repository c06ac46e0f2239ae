/**
 * A fault-injecting HTTP proxy between the SDK and dynalite, on 127.0.0.1 only. Each request draws
 * one fate from a seeded random source: forwarded untouched, or one of the faults DynamoDB clients
 * meet in production:
 * - `throttle` / `provisioned`: HTTP 400 ThrottlingException / ProvisionedThroughputExceededException
 *   in DynamoDB's JSON error shape, not forwarded;
 * - `server_error`: HTTP 500 InternalServerError, not forwarded;
 * - `reset_before`: the connection is destroyed before the request is forwarded;
 * - `reset_after`: the request is forwarded and the table applies it, then the connection is
 *   destroyed instead of returning the answer;
 * - `stall`: the request waits `stallMs` (past the SDK's request timeout) and is then forwarded:
 *   the table applies it late, after the client gave up (and maybe retried).
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback';

export const FAULT_KINDS = ['throttle', 'provisioned', 'server_error', 'reset_before', 'reset_after', 'stall'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultProxyOptions {
  /** Where requests go, e.g. the shared dynalite's endpoint. */
  readonly target: string;
  /** Probability of each fault per request; the rest are forwarded untouched. */
  readonly rates: Readonly<Partial<Record<FaultKind, number>>>;
  /** How long a stalled request waits before it is forwarded. */
  readonly stallMs: number;
  /** Seed of the fault draws, for a reproducible run. */
  readonly seed: number;
}

export interface FaultProxy {
  readonly endpoint: string;
  /** Requests seen, and how many met each fault. */
  readonly counts: { requests: number; forwarded: number } & Record<FaultKind, number>;
  /** Turns faults off (every request is forwarded) or back on. */
  setFaults(enabled: boolean): void;
  close(): Promise<void>;
}

const ERROR_BODIES: Partial<Record<FaultKind, { status: number; type: string; message: string }>> = {
  throttle: { status: 400, type: 'com.amazon.coral.availability#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' },
  provisioned: {
    status: 400,
    type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
    message: 'The level of configured provisioned throughput for the table was exceeded.',
  },
  server_error: { status: 500, type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
};

/** mulberry32: a small seeded PRNG, so a failing run can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  if (target.hostname !== '127.0.0.1') throw new Error(`the fault proxy forwards to 127.0.0.1 only, got ${options.target}`);
  const random = seededRandom(options.seed);
  const counts = { requests: 0, forwarded: 0, ...Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) } as FaultProxy['counts'];
  const agent = new Agent({ keepAlive: true });
  const timers = new Set<NodeJS.Timeout>();
  let enabled = true;

  const draw = (): FaultKind | undefined => {
    if (!enabled) return undefined;
    let roll = random();
    for (const kind of FAULT_KINDS) {
      roll -= options.rates[kind] ?? 0;
      if (roll < 0) return kind;
    }
    return undefined;
  };

  /** Sends the request on to the target; resolves with its status, headers and body. */
  const forward = (incoming: IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, host: target.host }, agent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }));
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const answer = async (incoming: IncomingMessage, res: ServerResponse, body: Buffer) => {
    counts.requests++;
    const fault = draw();
    if (fault) counts[fault]++;
    else counts.forwarded++;
    const error = fault && ERROR_BODIES[fault];
    if (error) {
      const text = JSON.stringify({ __type: error.type, message: error.message });
      res.writeHead(error.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `fault-${counts.requests}` });
      res.end(text);
      return;
    }
    if (fault === 'reset_before') {
      incoming.socket.destroy();
      return;
    }
    if (fault === 'stall') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, options.stallMs);
        timers.add(timer);
      });
    }
    const result = await forward(incoming, body);
    if (fault === 'reset_after') {
      incoming.socket.destroy();
      return;
    }
    if (res.destroyed || incoming.socket.destroyed) return; // the client gave up while it stalled
    const { 'content-length': _length, 'transfer-encoding': _encoding, connection: _connection, ...headers } = result.headers;
    res.writeHead(result.status, { ...headers, 'content-length': result.body.length });
    res.end(result.body);
  };

  const server = createServer((incoming, res) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      answer(incoming, res, Buffer.concat(chunks)).catch(() => incoming.socket.destroy());
    });
  });
  const endpoint = await listenOnLoopback(server);
  return {
    endpoint,
    counts,
    setFaults: (value) => {
      enabled = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

import type { Server } from 'node:http';
import dynalite from 'dynalite';
import { listenOnLoopback } from './loopback';

export interface RunningDynalite {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts an in-memory dynalite on a free 127.0.0.1 port. A new table turns ACTIVE after
 * `createTableMs` on a timer (even at 0 it is not ACTIVE when CreateTable answers): create tables
 * with `createActiveTable`.
 */
export async function startDynalite(options: { readonly createTableMs?: number } = {}): Promise<RunningDynalite> {
  const server: Server = dynalite({ createTableMs: options.createTableMs ?? 0, deleteTableMs: 0, updateTableMs: 0 });
  const endpoint = await listenOnLoopback(server);
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error?: Error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of SDK clients would otherwise hold the close open.
        server.closeAllConnections();
      }),
  };
}

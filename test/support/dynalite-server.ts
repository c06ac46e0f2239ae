import type { Server } from 'node:http';
import dynalite from 'dynalite';
import { listenOnLoopback } from './loopback';

export interface RunningDynalite {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts an in-memory dynalite on a free 127.0.0.1 port; tables become ACTIVE at once. */
export async function startDynalite(): Promise<RunningDynalite> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
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

/** The local servers' one way of listening: on 127.0.0.1 only, on a free port, closed with every connection. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops listening and drops every open connection (a client's keep-alive must not hold a run open). */
  close(): Promise<void>;
}

export async function listenOnLoopback(server: Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

import type { Server } from 'node:http';
import { listenOnLoopback as listen } from '../../local/loopback-server';

/** Listens on a free 127.0.0.1 port, as the local run's servers do; resolves to `http://127.0.0.1:<port>`. */
export async function listenOnLoopback(server: Server): Promise<string> {
  return (await listen(server)).url;
}

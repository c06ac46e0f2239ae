/** dynalite ships no types: the one call the tests make. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    readonly createTableMs?: number;
    readonly deleteTableMs?: number;
    readonly updateTableMs?: number;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}

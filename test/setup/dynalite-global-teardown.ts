import type { RunningDynalite } from '../support/dynalite-server';

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as { __DYNALITE__?: RunningDynalite };
  await holder.__DYNALITE__?.stop();
  holder.__DYNALITE__ = undefined;
}

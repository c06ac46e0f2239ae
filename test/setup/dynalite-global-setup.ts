import { startDynalite } from '../support/dynalite-server';

/** The variable through which test files find the shared dynalite. */
export const DYNALITE_ENDPOINT_VARIABLE = 'DYNALITE_ENDPOINT';

/**
 * Starts one dynalite for the whole run. Workers start after this and inherit the environment, so
 * `process.env.DYNALITE_ENDPOINT` reaches every test file.
 */
export default async function globalSetup(): Promise<void> {
  const dynalite = await startDynalite();
  process.env[DYNALITE_ENDPOINT_VARIABLE] = dynalite.endpoint;
  (globalThis as { __DYNALITE__?: typeof dynalite }).__DYNALITE__ = dynalite;
}

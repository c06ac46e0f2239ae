import type { ChildProcess } from 'node:child_process';

/** What a spawned process (or anything else watched) has printed so far. */
export interface Printed {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Polls `test` every 50 ms until it holds. After `ms`, or once `child` (when given) has exited
 * without it, throws naming `what` with everything printed, so a failure shows why.
 */
export async function until(
  test: () => boolean,
  what: string,
  printed: () => Printed,
  options: { readonly ms?: number; readonly child?: ChildProcess } = {},
): Promise<void> {
  const end = Date.now() + (options.ms ?? 30_000);
  while (!test()) {
    const exited = options.child !== undefined && options.child.exitCode !== null;
    if (Date.now() > end || exited) {
      const { stdout, stderr } = printed();
      throw new Error(`${exited ? 'the process exited' : 'timed out'} waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

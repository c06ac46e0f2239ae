/**
 * SIGINT and SIGTERM as an AbortSignal for the length of a `local` command, so that the run stops
 * cleanly (its functions, dynalite, a `cdk synth` it started, its temporary assembly and state file)
 * instead of being cut off. A second signal exits at once. cli/bin.ts turns the end of the shell
 * that `npx` starts the CLI with into the SIGTERM it stands for.
 */
import { constants } from 'node:os';
import { CliError } from '../console/errors';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface Interruption {
  /** Aborted with the signal's name as its reason. */
  readonly signal: AbortSignal;
  dispose(): void;
}

export function interruption(): Interruption {
  const controller = new AbortController();
  const listeners = SIGNALS.map((name) => {
    const listener = () => {
      if (controller.signal.aborted) process.exit(exitCodeOf(name));
      controller.abort(name);
    };
    process.on(name, listener);
    return () => process.off(name, listener);
  });
  return { signal: controller.signal, dispose: () => listeners.forEach((off) => off()) };
}

/** The exit code of a command stopped by `signal`'s reason: 128 + the signal's number (130 for SIGINT). */
export function exitCodeOf(reason: unknown): number {
  const number = constants.signals[reason as NodeJS.Signals];
  return number === undefined ? 1 : 128 + number;
}

/**
 * `work`, or a `CliError` as soon as `signal` aborts (whatever `work` does later is ignored: the
 * caller stops the run, which ends it).
 */
export async function unlessInterrupted<T>(signal: AbortSignal | undefined, work: Promise<T>): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined);
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(interrupted(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The error a command stopped by a signal ends with: its message names the signal, its exit code is 128 + n. */
export function interrupted(signal: AbortSignal): CliError {
  return new CliError(`Stopped by ${String(signal.reason)}.`, exitCodeOf(signal.reason));
}

/** How a child hands its measurements back: one JSON document on fd 3, then exit. */
import { writeSync } from 'node:fs';

export function report(result: unknown): never {
  writeSync(3, JSON.stringify(result));
  process.exit(0);
}

/** Runs `main` and reports its result; any failure goes to stderr with exit code 1. */
export function runMain(main: () => Promise<unknown>): void {
  main().then(report, (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

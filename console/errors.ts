/**
 * How a command fails. Each failure carries its exit code, so the CLI's `main` turns any of them into
 * a message and a code without knowing where it came from.
 *
 * Exit codes: 0 done; 1 the request failed or was not made (API error, network, credentials, stack
 * lookup, confirmation declined); 2 bad usage (unknown command or option, missing argument, no
 * terminal to confirm on without `--yes`).
 */

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A failure with a message meant for the user, as is. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad command line: exit code 2; `main` adds a pointer to `--help`. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

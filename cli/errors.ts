/**
 * The CLI's failures. Each carries its exit code, so `main` turns any of them into a message and a
 * code without knowing where it came from.
 *
 * Exit codes: 0 done; 1 the request failed or was not made (API error, network, credentials, stack
 * lookup, confirmation declined); 2 bad usage (unknown command or option, missing argument, no
 * terminal to confirm on without `--yes`).
 */
import { escapeText } from './escape';

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

/** A reply of the approvals API (or of the function URL in front of it) that was not 2xx. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    /** `error.type` of the API's body; `undefined` when the body was not the API's error shape. */
    readonly type: string | undefined,
    readonly apiMessage: string,
    hint?: string,
  ) {
    // The server's words on one line, escaped: only our own hint may start a new line.
    super(`${status}${type ? ` ${escapeText(type)}` : ''}: ${escapeText(apiMessage)}${hint ? `\n${hint}` : ''}`);
    this.name = 'ApiError';
  }
}

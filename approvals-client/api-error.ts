/** A reply of the approvals API (or of the function URL in front of it) that was not 2xx. */
import { CliError } from '../console/errors';
import { escapeText } from '../console/escape';

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

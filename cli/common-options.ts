import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../console/errors';

/** Options every command takes (`parseArgs` definitions). */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  stack: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** `argv` parsed strictly against `options`, positionals allowed; what `parseArgs` refuses is a `UsageError`. */
export function parseCommandLine<Options extends NonNullable<ParseArgsConfig['options']>>(argv: readonly string[], options: Options) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true as const, strict: true as const });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

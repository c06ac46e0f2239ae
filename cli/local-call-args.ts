/** `cdk-tool-handler local call ENVELOPE... [--file F] [--json]`: calls for a running `local`. */
import { readFileSync } from 'node:fs';
import { UsageError } from '../console/errors';
import { COMMON_OPTIONS, parseCommandLine } from './common-options';

export interface LocalCallCommand {
  readonly kind: 'local-call';
  readonly envelopes: readonly unknown[];
  readonly json: boolean;
}

const OPTIONS = { help: COMMON_OPTIONS.help, json: COMMON_OPTIONS.json, file: { type: 'string', short: 'f' } } as const;

export function parseLocalCallCommand(argv: readonly string[]): LocalCallCommand | { readonly kind: 'help'; readonly topic: 'local' } {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) return { kind: 'help', topic: 'local' };
  const envelopes: unknown[] = positionals.map((text, i) => parseJson(text, `Envelope ${i + 1}`));
  if (values.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(values.file, 'utf8');
    } catch (error) {
      throw new UsageError(`--file ${values.file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
    }
    const parsed = parseJson(text, `--file ${values.file}`);
    if (!Array.isArray(parsed)) throw new UsageError(`--file ${values.file} must hold a JSON array of envelopes.`);
    envelopes.push(...parsed);
  }
  if (envelopes.length === 0) {
    throw new UsageError(`\`local call\` needs an envelope, such as '{"tool":"add","args":{"a":1,"b":2}}', or --file FILE with a JSON array of them.`);
  }
  return { kind: 'local-call', envelopes, json: values.json === true };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${what} is not JSON (${(error as Error).message}).`);
  }
}

/** `cdk-tool-handler local [demo] ...`: its own options, parsed apart from `approvals`'. */
import { UsageError } from '../console/errors';
import type { LocalOptions } from '../local/command';
import { COMMON_OPTIONS, parseCommandLine } from './common-options';

/** `local` as the command line asks for it: what the local run's command takes. */
export interface LocalCommand extends LocalOptions {
  readonly kind: 'local';
}

const OPTIONS = {
  ...COMMON_OPTIONS,
  app: { type: 'string' },
  assembly: { type: 'string' },
  handler: { type: 'string' },
  direct: { type: 'boolean' },
  once: { type: 'boolean' },
  logs: { type: 'boolean' },
  'expire-every': { type: 'string' },
  principal: { type: 'string' },
  file: { type: 'string', short: 'f' },
} as const;

export function parseLocalCommand(argv: readonly string[]): LocalCommand | { readonly kind: 'help'; readonly topic: 'local' } {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) return { kind: 'help', topic: 'local' };
  const demo = positionals[0] === 'demo';
  const texts = demo ? positionals.slice(1) : positionals;
  if (values.app !== undefined && values.assembly !== undefined) throw new UsageError('Pass either --app or --assembly, not both.');
  if (demo && (texts.length > 0 || values.file !== undefined || values.direct)) {
    throw new UsageError('`local demo` takes no envelopes (nor --file or --direct).');
  }
  const envelopes = texts.map((text, i) => {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new UsageError(`Envelope ${i + 1} is not JSON (${(error as Error).message}): ${text}`);
    }
  });
  const every = values['expire-every'] === undefined ? 1 : Number(values['expire-every']);
  if (!Number.isFinite(every) || every <= 0 || every > 300) {
    throw new UsageError(`--expire-every must be a number of seconds from 0.1 to 300, got: ${values['expire-every']}.`);
  }
  if (values.principal !== undefined && !/^arn:aws[a-z-]*:(iam|sts)::\d{12}:.+/.test(values.principal)) {
    throw new UsageError(`--principal must be an IAM or STS principal ARN, got: ${values.principal}.`);
  }
  return {
    kind: 'local',
    demo,
    app: values.app,
    assembly: values.assembly,
    stack: values.stack,
    handler: values.handler,
    json: values.json === true,
    direct: values.direct === true,
    once: values.once === true,
    logs: values.logs === true,
    expireEverySeconds: every,
    principal: values.principal,
    envelopes,
    file: values.file,
  };
}

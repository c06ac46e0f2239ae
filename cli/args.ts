/** The command line, parsed with `node:util` `parseArgs` into one of a few commands. */
import { APPROVAL_STATUSES, type ApprovalStatus } from '../approvals-client/record';
import { UsageError } from '../console/errors';
import { COMMON_OPTIONS, parseCommandLine } from './common-options';
import { parseAuditCommand, type AuditCommand } from './audit-args';
import { parseLocalCallCommand, type LocalCallCommand } from './local-call-args';
import { parseLocalCommand, type LocalCommand } from './local-args';

/** Where the approvals API is. */
export type Target =
  | { readonly kind: 'url'; readonly url: string; readonly region?: string }
  /** The running `cdk-tool-handler local` of this directory. */
  | { readonly kind: 'local' }
  | { readonly kind: 'stack'; readonly stack: string; readonly output?: string; readonly region?: string };

export type Command =
  | { readonly kind: 'help'; readonly topic: 'top' | 'approvals' | 'local' | 'audit' }
  | LocalCommand
  | LocalCallCommand
  | AuditCommand
  | {
      readonly kind: 'list';
      readonly target: Target;
      readonly json: boolean;
      readonly status?: ApprovalStatus;
      readonly pageSize: number;
    }
  | { readonly kind: 'show'; readonly target: Target; readonly json: boolean; readonly id: string }
  | {
      readonly kind: 'decide';
      readonly target: Target;
      readonly json: boolean;
      readonly id: string;
      readonly approved: boolean;
      readonly reason?: string;
      readonly yes: boolean;
    };

const OPTIONS = {
  ...COMMON_OPTIONS,
  url: { type: 'string' },
  output: { type: 'string' },
  region: { type: 'string' },
  status: { type: 'string' },
  'page-size': { type: 'string' },
  reason: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  local: { type: 'boolean' },
} as const;

const SUBCOMMANDS = ['list', 'show', 'approve', 'deny'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** Options that only some subcommands take. */
const ONLY_FOR: Record<string, readonly Subcommand[]> = {
  status: ['list'],
  'page-size': ['list'],
  reason: ['approve', 'deny'],
  yes: ['approve', 'deny'],
};

export const DEFAULT_PAGE_SIZE = 100;

export function parseCommand(argv: readonly string[]): Command {
  if (argv[0] === 'local' && argv[1] === 'call') return parseLocalCallCommand(argv.slice(2));
  if (argv[0] === 'local') return parseLocalCommand(argv.slice(1));
  if (argv[0] === 'audit') return parseAuditCommand(argv.slice(1));
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  const [group, sub, ...rest] = positionals;

  if (group === undefined) {
    if (values.help) return { kind: 'help', topic: 'top' };
    throw new UsageError('Missing command: try `approvals`, `audit` or `local`.');
  }
  if (group !== 'approvals') throw new UsageError(`Unknown command \`${group}\`: one of \`approvals\`, \`audit\`, \`local\`.`);
  if (values.help) return { kind: 'help', topic: 'approvals' };
  if (sub === undefined) throw new UsageError(`Missing subcommand: one of ${SUBCOMMANDS.join(', ')}.`);
  if (!isSubcommand(sub)) throw new UsageError(`Unknown subcommand \`${sub}\`: one of ${SUBCOMMANDS.join(', ')}.`);

  for (const [option, allowed] of Object.entries(ONLY_FOR)) {
    if (values[option as keyof typeof values] !== undefined && !allowed.includes(sub)) {
      throw new UsageError(`--${option} is only for ${allowed.map((s) => `\`${s}\``).join(' and ')}.`);
    }
  }

  const target = parseTarget(values);
  const json = values.json === true;

  if (sub === 'list') {
    if (rest.length > 0) throw new UsageError(`\`list\` takes no argument, got: ${rest.join(' ')}.`);
    return { kind: 'list', target, json, status: parseStatus(values.status), pageSize: parsePageSize(values['page-size']) };
  }

  const [id, ...extra] = rest;
  if (id === undefined || id === '') throw new UsageError(`\`${sub}\` needs the approval's ID.`);
  if (extra.length > 0) throw new UsageError(`\`${sub}\` takes one ID, got also: ${extra.join(' ')}.`);
  if (sub === 'show') return { kind: 'show', target, json, id };
  return {
    kind: 'decide',
    target,
    json,
    id,
    approved: sub === 'approve',
    reason: values.reason,
    yes: values.yes === true,
  };
}

function isSubcommand(value: string): value is Subcommand {
  return (SUBCOMMANDS as readonly string[]).includes(value);
}

function parseTarget(values: { url?: string; stack?: string; output?: string; region?: string; local?: boolean }): Target {
  const region = values.region;
  if (values.local) {
    if (values.url !== undefined || values.stack !== undefined || values.output !== undefined || region !== undefined) {
      throw new UsageError('--local goes alone: not with --url, --stack, --output or --region.');
    }
    return { kind: 'local' };
  }
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) {
    throw new UsageError(`--region must be a region name such as us-east-1, got: ${region}.`);
  }
  if (values.url !== undefined && values.stack !== undefined) {
    throw new UsageError('Pass either --url or --stack, not both.');
  }
  if (values.output !== undefined && values.stack === undefined) {
    throw new UsageError('--output goes with --stack.');
  }
  if (values.url !== undefined) return { kind: 'url', url: values.url, region };
  if (values.stack !== undefined) return { kind: 'stack', stack: values.stack, output: values.output, region };
  throw new UsageError(
    "Where is the approvals API? Pass --url URL, or --stack NAME to read it from the stack's output (or --local for a running `cdk-tool-handler local`).",
  );
}

function parseStatus(value: string | undefined): ApprovalStatus | undefined {
  if (value === undefined) return undefined;
  if (!(APPROVAL_STATUSES as readonly string[]).includes(value)) {
    throw new UsageError(`--status must be one of ${APPROVAL_STATUSES.join(', ')}, got: ${value}.`);
  }
  return value as ApprovalStatus;
}

function parsePageSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100) throw new UsageError(`--page-size must be an integer from 1 to 100, got: ${value}.`);
  return n;
}

/**
 * `cdk-tool-handler approvals list | show ID | approve ID | deny ID` (`--local` for a
 * running local run), `cdk-tool-handler audit` (the audit records, commands/audit.ts) and
 * `cdk-tool-handler local [demo]` (the local run, local/command.ts), callable in-process:
 * everything it touches of its process comes in `io`, and it returns the exit code (see
 * console/errors.ts).
 */
import { ApiError } from '../approvals-client/api-error';
import { ApprovalsClient } from '../approvals-client/client';
import { defaultRegion, toEndpoint } from '../approvals-client/endpoint';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from '../console/errors';
import { escapeLines, printableJson } from '../console/escape';
import { writeLine, type CliIo } from '../console/io';
import { readState } from '../local/state';
import { parseCommand, type Command, type Target } from './args';
import { auditCommand } from './commands/audit';
import { decideCommand, checkCanConfirm } from './commands/decide';
import { listCommand } from './commands/list';
import { showCommand } from './commands/show';
import { resolveCredentials } from './credentials';
import { readStackUrl } from './stack-url';
import { APPROVALS_USAGE, AUDIT_USAGE, LOCAL_USAGE, TOP_USAGE } from './usage';

export type { CliIo } from '../console/io';

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const command: Command = parseCommand(argv);
    if (command.kind === 'help') {
      io.stdout.write(HELP[command.topic]);
      return EXIT_OK;
    }
    if (command.kind === 'audit') {
      await auditCommand(command, io);
      return EXIT_OK;
    }
    if (command.kind === 'local-call') {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { localCallCommand } = require('./commands/local-call') as typeof import('./commands/local-call');
      return await localCallCommand(command, io);
    }
    if (command.kind === 'local') {
      // Loaded on use: `approvals` never pays for the local run's code.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { localCommand } = require('../local/command') as typeof import('../local/command');
      return await localCommand(command, io);
    }
    if (command.kind === 'decide') checkCanConfirm(io, command);
    const client = await connect(command.target, io);
    switch (command.kind) {
      case 'list':
        await listCommand(client, io, command);
        break;
      case 'show':
        await showCommand(client, io, command);
        break;
      case 'decide':
        await decideCommand(client, io, command);
        break;
    }
    return EXIT_OK;
  } catch (error) {
    // `--json` counts even when the rest of the command line did not parse.
    return report(error, io, argv.includes('--json'), argv);
  }
}

const HELP = { top: TOP_USAGE, approvals: APPROVALS_USAGE, local: LOCAL_USAGE, audit: AUDIT_USAGE } as const;

/** The commands with a help of their own, which a usage error of theirs points to. */
const USAGE_COMMANDS = ['local', 'audit'];

/** A given URL is checked first; then credentials (one identity for the stack lookup and the API). */
async function connect(target: Target, io: CliIo): Promise<ApprovalsClient> {
  if (target.kind === 'local') {
    const state = readState(io.env);
    return new ApprovalsClient(toEndpoint(state.url, state.region), async () => ({
      accessKeyId: state.accessKeyId,
      secretAccessKey: state.secretAccessKey,
    }));
  }
  const fallbackRegion = defaultRegion(target.region, io.env);
  if (target.kind === 'url') {
    const endpoint = toEndpoint(target.url, fallbackRegion);
    return new ApprovalsClient(endpoint, await resolveCredentials(io.env));
  }
  const credentials = await resolveCredentials(io.env);
  const url = await readStackUrl({ stack: target.stack, output: target.output, region: target.region, credentials, env: io.env });
  return new ApprovalsClient(toEndpoint(url, fallbackRegion), credentials);
}

function report(error: unknown, io: CliIo, json: boolean, argv: readonly string[]): number {
  if (!(error instanceof CliError)) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    writeLine(io.stderr, json ? printableJson({ error: { type: 'internal', message } }) : `Unexpected error: ${escapeLines(message)}`);
    return EXIT_FAILED;
  }
  if (json) {
    const body =
      error instanceof ApiError
        ? { status: error.status, type: error.type ?? null, message: error.apiMessage }
        : { type: error instanceof UsageError ? 'usage' : 'failed', message: error.message };
    writeLine(io.stderr, printableJson({ error: body }));
  } else {
    // Messages may hold server text (and fields are escaped where they are put in): escape the rest.
    writeLine(io.stderr, `Error: ${escapeLines(error.message)}`);
    if (error.exitCode === EXIT_USAGE) {
      writeLine(io.stderr, `Run \`cdk-tool-handler ${USAGE_COMMANDS.includes(argv[0]) ? argv[0] : 'approvals'} --help\` for usage.`);
    }
  }
  return error.exitCode;
}

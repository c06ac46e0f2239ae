/**
 * `audit [--since] [--caller] [--tool] [--approval] (--stack NAME [--output KEY] | --local) [--json]`:
 * the audit records (docs/operations.md, "Audit records") of a deployed stack, read from its log groups in
 * CloudWatch Logs, or of the running local run, from its audit file; newest last, one line each for
 * people or one JSON record each (`--json`, as written). Every value printed is escaped.
 */
import { auditRecordOf, formatAuditRecord, type AuditRecord } from '../../console/audit-record';
import { CliError } from '../../console/errors';
import { printableJson } from '../../console/escape';
import { writeLine, type CliIo } from '../../console/io';
import { readAuditFile } from '../../local/audit-file';
import { readState } from '../../local/state';
import type { AuditCommand } from '../audit-args';
import { readAuditLogGroups, type AuditLogGroup } from '../audit-log-groups';
import { auditFilterPattern, inTimeOrder, matchesAuditQuery } from '../audit-query';
import { resolveCredentials } from '../credentials';
import { withProcessEnv } from '../process-env';

export async function auditCommand(command: AuditCommand, io: CliIo): Promise<void> {
  const records = command.target.kind === 'local' ? localRecords(io) : await cloudRecords(command, io);
  const chosen = inTimeOrder(records.filter((record) => matchesAuditQuery(record, command.query)));
  if (command.json) {
    for (const record of chosen) writeLine(io.stdout, printableJson(record));
    return;
  }
  for (const record of chosen) writeLine(io.stdout, formatAuditRecord(record));
  if (chosen.length === 0) writeLine(io.stdout, `No audit records since ${new Date(command.query.since).toISOString()}.`);
}

/** The running local run's records, from the audit file its state names. */
function localRecords(io: CliIo): AuditRecord[] {
  const state = readState(io.env);
  if (state.audit === undefined) {
    throw new CliError('The running local run keeps no audit file: stop it and start `cdk-tool-handler local` again with this version.');
  }
  return readAuditFile(state.audit);
}

async function cloudRecords(command: AuditCommand, io: CliIo): Promise<AuditRecord[]> {
  if (command.target.kind !== 'stack') return [];
  const { stack, output, region } = command.target;
  const credentials = await resolveCredentials(io.env);
  const logGroups = await readAuditLogGroups({ stack, output, region, credentials, env: io.env });
  // Loaded on use: `approvals` and `audit --local` never pay for the CloudWatch Logs client.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { filterLogEvents, LogGroupReadError } = require('../cloudwatch-logs') as typeof import('../cloudwatch-logs');
  const events = await withProcessEnv(io.env, async () => {
    try {
      return await filterLogEvents({
        logGroups: logGroups.map((g) => g.logGroup),
        filterPattern: auditFilterPattern(command.query),
        startTime: command.query.since,
        endTime: Date.now(),
        region,
        credentials,
      });
    } catch (error) {
      throw error instanceof LogGroupReadError ? logsError(stack, logGroups, error.logGroup, error.cause) : error;
    }
  });
  const records: AuditRecord[] = [];
  let others = 0;
  for (const event of events) {
    const record = auditRecordOf(event.message);
    if (record) records.push(record);
    else others += 1;
  }
  // Nothing is left out unsaid: an event the pattern matched that is not a record is counted on stderr.
  if (others > 0) {
    writeLine(io.stderr, `note: ${others} matching log event${others === 1 ? ' is' : 's are'} not an audit record (a JSON object whose record is "audit"): left out.`);
  }
  return records;
}

function logsError(stack: string, logGroups: readonly AuditLogGroup[], logGroup: string, error: unknown): CliError {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const message = e?.message ?? String(error);
  const part = logGroups.find((g) => g.logGroup === logGroup)?.part ?? 'function';
  if (/region is missing/i.test(message)) {
    return new CliError('No region for CloudWatch Logs: pass --region or set AWS_REGION (or a region in your profile).');
  }
  if (e?.name === 'AccessDeniedException' || e?.name === 'AccessDenied' || e?.$metadata?.httpStatusCode === 403) {
    return new CliError(
      `Not allowed to read the log group ${logGroup} of stack ${stack} (logs:FilterLogEvents): grant it with the construct's grantReadAudit. ${message}`,
    );
  }
  if (e?.name === 'ResourceNotFoundException') {
    return new CliError(`The log group ${logGroup} (the ${part}'s) of stack ${stack} does not exist: was the stack deployed in this account and region?`);
  }
  const name = e?.name && e.name !== 'Error' ? `${e.name}: ` : '';
  return new CliError(`Could not read the log group ${logGroup} of stack ${stack}: ${name}${message}`);
}

/**
 * `approvals approve|deny ID [--reason R] [--yes]`: reads the approval, shows what would run, asks
 * (unless `--yes`), then decides with the fingerprint that was shown, so the decision binds to
 * exactly the tool and args the approver saw.
 */
import type { ApprovalsClient } from '../../approvals-client/client';
import type { Target } from '../args';
import { CliError, UsageError } from '../../console/errors';
import { escapeText as esc, printableJson } from '../../console/escape';
import { writeLine, type CliIo } from '../../console/io';
import { confirm } from '../confirm';
import { formatDetails, shortTime } from '../format';

export interface DecideInput {
  /** Where the API is: the refusal's suggestion repeats it. @default - not shown */
  readonly target?: Target;
  readonly id: string;
  readonly approved: boolean;
  readonly reason?: string;
  readonly yes: boolean;
  readonly json: boolean;
}

/** Refuses before any request when nobody could answer the question. */
export function checkCanConfirm(io: CliIo, input: DecideInput): void {
  if (input.yes || io.stdin.isTTY === true) return;
  const verb = input.approved ? 'approve' : 'deny';
  throw new UsageError(
    `Refusing to ${verb} without confirmation: stdin is not a terminal. ` +
      `Check the approval with \`approvals show ${input.id}${targetOptions(input.target)}\`, then pass --yes to ${verb} it without asking.`,
  );
}

/** The options that name `target` again, for a command line to suggest (` --local`, ` --stack S`, ...). */
function targetOptions(target: Target | undefined): string {
  switch (target?.kind) {
    case 'local':
      return ' --local';
    case 'stack':
      return ` --stack ${target.stack}${target.output ? ` --output ${target.output}` : ''}${target.region ? ` --region ${target.region}` : ''}`;
    case 'url':
      return ` --url ${target.url}${target.region ? ` --region ${target.region}` : ''}`;
    default:
      return '';
  }
}

export async function decideCommand(client: ApprovalsClient, io: CliIo, input: DecideInput): Promise<void> {
  checkCanConfirm(io, input);
  const verb = input.approved ? 'Approve' : 'Deny';
  // With --json, stdout carries only the decided record.
  const talk = input.json ? io.stderr : io.stdout;

  const record = await client.get(input.id);
  talk.write(formatDetails(record));
  if (record.status !== 'pending') {
    const by = record.decided_by ? ` by ${esc(record.decided_by)}` : '';
    const at = record.decided_at ? ` at ${esc(shortTime(record.decided_at))}` : '';
    throw new CliError(`Approval ${esc(record.approval_id)} is ${esc(record.status)}${by}${at}, not pending: nothing to decide.`);
  }
  if (!input.yes) {
    const yes = await confirm(`${verb} tool ${esc(record.tool)} for approval ${esc(record.approval_id)}?`, io.stdin, talk);
    if (!yes) throw new CliError(`Not ${input.approved ? 'approved' : 'denied'}: nothing was sent.`);
  }
  const decided = await client.decide(record.approval_id, {
    approved: input.approved,
    fingerprint: record.fingerprint,
    ...(input.reason === undefined ? {} : { reason: input.reason }),
  });
  if (input.json) {
    io.stdout.write(`${printableJson(decided, 2)}\n`);
    return;
  }
  const by = decided.decided_by ? ` as ${esc(decided.decided_by)}` : '';
  const reason = decided.reason ? ` (reason: ${esc(decided.reason)})` : '';
  const done = decided.status === 'approved' ? 'Approved' : decided.status === 'denied' ? 'Denied' : `Decided (now ${esc(decided.status)})`;
  writeLine(io.stdout, `${done} ${esc(decided.approval_id)}, tool ${esc(decided.tool)}${by}${reason}.`);
}

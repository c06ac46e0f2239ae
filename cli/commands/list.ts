/** `approvals list [--status S]`: every page, as a table or as JSON. */
import type { ApprovalsClient } from '../../approvals-client/client';
import type { ApprovalStatus } from '../../approvals-client/record';
import { printableJson } from '../../console/escape';
import type { CliIo } from '../../console/io';
import { formatTable } from '../format';

export async function listCommand(
  client: ApprovalsClient,
  io: CliIo,
  input: { status?: ApprovalStatus; pageSize: number; json: boolean },
): Promise<void> {
  const approvals = await client.listAll({ status: input.status, pageSize: input.pageSize });
  io.stdout.write(input.json ? `${printableJson({ approvals }, 2)}\n` : formatTable(approvals));
}

/** `approvals show ID`. */
import type { ApprovalsClient } from '../../approvals-client/client';
import { printableJson } from '../../console/escape';
import type { CliIo } from '../../console/io';
import { formatDetails } from '../format';

export async function showCommand(client: ApprovalsClient, io: CliIo, input: { id: string; json: boolean }): Promise<void> {
  const record = await client.get(input.id);
  io.stdout.write(input.json ? `${printableJson(record, 2)}\n` : formatDetails(record));
}

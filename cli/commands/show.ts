/** `approvals show ID`. */
import type { ApprovalsClient } from '../approvals-client';
import { printableJson } from '../escape';
import { formatDetails } from '../format';
import type { CliIo } from '../io';

export async function showCommand(client: ApprovalsClient, io: CliIo, input: { id: string; json: boolean }): Promise<void> {
  const record = await client.get(input.id);
  io.stdout.write(input.json ? `${printableJson(record, 2)}\n` : formatDetails(record));
}

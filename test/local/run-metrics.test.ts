/**
 * The table `local demo` ends with (local/run-metrics.ts), read from the runtime's own EMF lines:
 * a row per allowlisted tool, the calls that named none on a row of their own, the approvals' figures.
 */
import * as z from 'zod';
import { approvalsExpirer } from '../../lambda/approvals/expirer';
import { MemoryApprovalStore, tool, toolHandler, ToolExecutor } from '../../lambda';
import { metricsTable, runMetrics } from '../../local/run-metrics';
import type { LocalLine } from '../../local/print';
import { captureLogs, lambdaContext } from '../support/events';

test('a row per tool, one for calls without an allowlisted tool, and the expirer\'s figures', async () => {
  const logs = captureLogs();
  try {
    const store = new MemoryApprovalStore({ owner: 'team-a' });
    const add = tool({ name: 'add', input: z.object({ a: z.number() }), run: ({ a }) => a });
    const refund = tool({ name: 'refund', requiresApproval: true, run: () => 'done' });
    const handler = toolHandler(new ToolExecutor({ tools: [add, refund], approvals: store, owner: 'team-a' }), { replies: false });
    await handler({ tool: 'add', args: { a: 1 }, run_id: 'r', call_id: 'c' }, lambdaContext(10_000));
    await handler({ tool: 'add', args: { a: 1 }, run_id: 'r', call_id: 'c' }, lambdaContext(10_000));
    await handler({ tool: 'add', args: { a: 'x' } }, lambdaContext(10_000)).catch(() => undefined);
    await handler({ tool: 'refund', args: {} }, lambdaContext(10_000));
    await handler({ tool: 'nope' }, lambdaContext(10_000)).catch(() => undefined);
    await approvalsExpirer({ store, metrics: { owner: 'team-a', namespace: 'CdkToolHandler' } })();
  } finally {
    logs.restore();
  }
  const lines: LocalLine[] = [
    ...logs.text().map((line) => ({ type: 'log' as const, function: 'handler', line })),
    { type: 'log', function: 'handler', line: 'not JSON at all {"_aws"' },
  ];
  const table = metricsTable(runMetrics(lines));
  expect(table.map((row) => row.replace(/ +/g, ' '))).toEqual([
    ' tool Calls Failed ApprovalsRequested DuplicatesSuppressed Duration p50 (ms)',
    expect.stringMatching(/^ add 3 1 0 1 \d+$/),
    expect.stringMatching(/^ refund 1 0 1 0 \d+$/),
    ' (no allowlisted tool) 1 1 0 0 -',
    " approvals of team-a: ApprovalsDecided 0 approved, 0 denied; ApprovalsExpired 0; PendingApprovals 1 and OldestPendingApprovalAge 0 s at the expirer's last run",
  ]);
});

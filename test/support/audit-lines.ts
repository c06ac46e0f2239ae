/**
 * Every line the real bundles write in a run of the sample: the local run (local/runtime.ts) on the
 * sample's synthesized assembly, its handler bundled by esbuild and its approvals API and expirer
 * from dist/functions, each in a sandbox of its own against dynalite. The run: the demo's whole
 * lifecycle (a call, one that needs approval, its decision, the resume and its `ok`, a second
 * resume's `already_done`, a denial, an expiry), then calls that fail (bad args, an unknown tool, a
 * message that is not JSON) and a call whose reply cannot be published (the reply bus unreachable:
 * the handler's warning). `SECRET_ARGS` are args values of those calls that no record may carry.
 */
import { runDemo } from '../../local/demo';
import { LocalRun } from '../../local/runtime';
import { waitFor } from '../../local/scripting';
import { removeMade, synthesizeSample } from '../local/sample-assembly';

export interface WrittenLine {
  /** The function that wrote it: `handler`, `engine`, `api`, `expirer`. */
  readonly fn: string;
  readonly line: string;
}

export interface SampleRun {
  readonly lines: readonly WrittenLine[];
  /** The stack's template, as synthesized. */
  readonly template: any;
  readonly stackName: string;
  /** The approval the run approved first (its call, decision and resume). */
  readonly approvedId: string;
}

export const SECRET_ARGS = ['secret-order-7f3a9c', 'secret-arg-b81d2e', 'secret-tool-arg-5e0c44'] as const;

export async function runSampleForLines(): Promise<SampleRun> {
  const assembly = synthesizeSample();
  const run = await LocalRun.start({ assembly, print: () => undefined, expireEverySeconds: 0.5 });
  try {
    if (!(await runDemo(run, () => undefined))) throw new Error('the demo did not answer as expected');
    const approvedId = (run.lines.find((l) => l.type === 'decision' && l.status === 'approved') as { approval_id: string }).approval_id;
    // A call that waits for approval, with an args value no record may show.
    await run.send([{ tool: 'refund', args: { orderId: SECRET_ARGS[0] }, run_id: 'audit', call_id: 'refund-secret' }]);
    // Errors: args that do not fit, a tool the handler does not have, a message that is not JSON.
    await run.invoke({ tool: 'add', args: { a: SECRET_ARGS[1], b: 2 }, run_id: 'audit', call_id: 'bad-args' });
    await run.invoke({ tool: 'no_such_tool', args: { x: SECRET_ARGS[2] }, run_id: 'audit', call_id: 'unknown' });
    await run.send(['{not json']);
    // The reply bus unreachable: the handler warns, and the record is failed for a retry.
    await run.restart('handler', { AWS_ENDPOINT_URL_EVENTBRIDGE: 'http://127.0.0.1:9' });
    await run.send([{ tool: 'add', args: { a: 40, b: 2 }, run_id: 'audit', call_id: 'unpublished' }]);
    await run.settled();
    const logs = () => run.lines.flatMap((l) => (l.type === 'log' ? [{ fn: l.function, line: l.line }] : []));
    // Lines are read as they come: wait for the warning, the last line the run makes.
    await waitFor(() => (logs().some(({ line }) => line.includes('"level":"WARN"')) ? true : undefined), 20_000);
    return { lines: logs(), template: run.template, stackName: run.stackName, approvedId };
  } finally {
    await run.stop();
    removeMade();
  }
}

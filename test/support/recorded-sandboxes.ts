import * as path from 'node:path';
import { FunctionSandbox, type InvokeOutcome } from '../../local/function-sandbox';

/**
 * Bundles run each in a `node` process of its own (local/function-sandbox.ts), every line they
 * print kept with the label of the function that printed it: for tests that read what the real
 * bundles wrote (log lines, audit records, metrics).
 */
export class RecordedSandboxes {
  /** Every line the sandboxes printed, in order, with their labels. */
  readonly printed: Array<{ fn: string; line: string }> = [];
  private readonly sandboxes: FunctionSandbox[] = [];

  /** A sandbox for `bundle` (its `index.handler`) with `env`; started by `ready()`. */
  add(label: string, bundle: string, env: Record<string, string>, nodePath: string): FunctionSandbox {
    const made = new FunctionSandbox(
      { name: label, label, codeDir: path.dirname(bundle), handler: 'index.handler', env, timeoutSeconds: 20, memoryMb: 256 },
      { nodePath, isolation: 'process', onLog: (fn, line) => this.printed.push({ fn, line }) },
    );
    this.sandboxes.push(made);
    return made;
  }

  ready(): Promise<void[]> {
    return Promise.all(this.sandboxes.map((s) => s.ready()));
  }

  stop(): Promise<void[]> {
    return Promise.all(this.sandboxes.map((s) => s.stop()));
  }
}

/** What an invocation returned; throws with the error when it threw. */
export function returned(outcome: InvokeOutcome): any {
  if (!outcome.ok) throw new Error(`expected a result, got ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}

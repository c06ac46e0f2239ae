/**
 * Runs a bench child: a fresh `node` process whose stdout goes to /dev/null (the runtime under test
 * logs one JSON line per call there) and which hands its measurements back as one JSON document on
 * file descriptor 3.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { ROOT } from './paths';

export interface ChildOptions {
  /** Extra `node` flags, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  readonly env?: Record<string, string | undefined>;
  /** Kill the child after this long. @default 120 s */
  readonly timeoutMs?: number;
}

export interface ChildRun<T> {
  readonly result: T;
  /** Spawn to exit, ms. */
  readonly wallMs: number;
}

export function runChild<T>(script: string, args: readonly string[], options: ChildOptions = {}): Promise<ChildRun<T>> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdio[3]!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      const stderr = Buffer.concat(err).toString('utf8');
      const text = Buffer.concat(out).toString('utf8');
      if (code !== 0) {
        reject(new Error(`${script} ${args.join(' ')} exited with ${code ?? signal}:\n${stderr.slice(-4000)}`));
        return;
      }
      try {
        resolve({ result: JSON.parse(text) as T, wallMs });
      } catch (error) {
        reject(new Error(`${script} wrote no result (${(error as Error).message}):\n${stderr.slice(-4000)}`));
      }
    });
  });
}

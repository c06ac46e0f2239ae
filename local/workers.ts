/**
 * Each function runs in a `worker_threads` Worker of this process: a worker has its own
 * `process.env` (the function's environment) and its own module cache, as a Lambda sandbox has.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface FunctionSpec {
  /** The local function name (the template's logical id). */
  readonly name: string;
  /** What `local` prints for it (`handler`, `engine`, `api`, `expirer`). */
  readonly label: string;
  readonly codeDir: string;
  /** `index.handler`. */
  readonly handler: string;
  readonly env: Record<string, string>;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

export type InvokeOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: { readonly errorType: string; readonly errorMessage: string; readonly retryable?: boolean } };

/** The worker's script (run with `eval`: the CLI stays one file). */
const WORKER_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
process.env.NODE_PATH = workerData.nodePath;
require('node:module')._initPaths();
const mod = require(workerData.file);
const handler = mod[workerData.exportName];
if (typeof handler !== 'function') throw new Error(workerData.file + ' exports no function ' + workerData.exportName);
parentPort.on('message', async ({ id, event, requestId, timeoutMs }) => {
  const end = Date.now() + timeoutMs;
  const context = {
    awsRequestId: requestId,
    functionName: workerData.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: workerData.arn,
    memoryLimitInMB: String(workerData.memoryMb),
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, end - Date.now()),
  };
  try {
    const result = await handler(event, context);
    parentPort.postMessage({ id, ok: true, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: { errorType: (error && error.name) || 'Error', errorMessage: (error && error.message) || String(error), retryable: error && error.retryable } });
  }
});
parentPort.postMessage({ ready: true });
`;

export class FunctionWorker {
  private worker!: Worker;
  private readonly waiting = new Map<string, (outcome: InvokeOutcome) => void>();
  private started!: Promise<void>;

  constructor(
    readonly spec: FunctionSpec,
    private readonly nodePath: string,
    private readonly onLog: (label: string, line: string) => void,
  ) {
    this.start(spec.env);
  }

  private start(env: Record<string, string>): void {
    const [file, exportName] = splitHandler(this.spec.codeDir, this.spec.handler);
    this.worker = new Worker(WORKER_CODE, {
      eval: true,
      env: { ...env, NODE_PATH: this.nodePath },
      workerData: {
        file,
        exportName,
        name: this.spec.name,
        arn: `arn:aws:lambda:${env.AWS_REGION}:000000000000:function:${this.spec.name}`,
        memoryMb: this.spec.memoryMb,
        nodePath: this.nodePath,
      },
      stdout: true,
      stderr: true,
    });
    for (const stream of [this.worker.stdout, this.worker.stderr]) {
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        let at: number;
        while ((at = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, at);
          buffered = buffered.slice(at + 1);
          if (line.trim()) this.onLog(this.spec.label, line);
        }
      });
    }
    const worker = this.worker;
    this.started = new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', (error) => reject(new Error(`The ${this.spec.label} function (${this.spec.name}) failed to start: ${error.message}`)));
    });
    this.started.catch(() => undefined);
    worker.on('message', (message: { id?: string } & InvokeOutcome) => {
      if (message.id === undefined) return;
      const resolve = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      resolve?.(message);
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', (code) => this.failAll(new Error(`exited with code ${code}`)));
  }

  ready(): Promise<void> {
    return this.started;
  }

  async invoke(event: unknown): Promise<InvokeOutcome> {
    await this.started;
    const id = randomUUID();
    const timeoutMs = this.spec.timeoutSeconds * 1000;
    return new Promise<InvokeOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ ok: false, error: { errorType: 'Sandbox.Timedout', errorMessage: `Task timed out after ${this.spec.timeoutSeconds} seconds` } });
      }, timeoutMs + 500);
      this.waiting.set(id, (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      });
      this.worker.postMessage({ id, event, requestId: randomUUID(), timeoutMs });
    });
  }

  /** A new sandbox with environment changes (the demo's short approval TTL). */
  async restart(overrides: Record<string, string>): Promise<void> {
    const old = this.worker;
    old.removeAllListeners('exit');
    await old.terminate();
    this.start({ ...this.spec.env, ...overrides });
    await this.started;
  }

  async stop(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private failAll(error: Error): void {
    for (const [id, resolve] of this.waiting) {
      this.waiting.delete(id);
      resolve({ ok: false, error: { errorType: 'Runtime.ExitError', errorMessage: `${this.spec.label}: ${error.message}` } });
    }
  }
}

/** `index.handler` in `dir` → [`dir/index.js`, `handler`]. */
function splitHandler(dir: string, handler: string): [string, string] {
  const at = handler.lastIndexOf('.');
  return [path.join(dir, handler.slice(0, at)), handler.slice(at + 1)];
}

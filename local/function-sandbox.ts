/**
 * One function's sandbox, as Lambda gives each function one: its own `process.env` (the function's
 * environment) and its own module cache, invoked one event at a time with a Lambda-shaped context
 * and the function's timeout. The sandbox is a `worker_threads` Worker of this process (what
 * `cdk-tool-handler local` uses: fast, one process), or a `node` process of its own (tests that want
 * the full isolation of a process: only the function's environment, its own working directory).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { SANDBOX_SCRIPT, type SandboxData } from './sandbox-script';

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

/** A worker thread of this process, or a `node` process of its own. */
export type Isolation = 'thread' | 'process';

export interface SandboxOptions {
  /** The `node_modules` folders the bundle's external modules (the AWS SDK) resolve from, as NODE_PATH. */
  readonly nodePath: string;
  /** @default 'thread' */
  readonly isolation?: Isolation;
  /** Each line the function writes (stdout and stderr), with its spec's label. @default - dropped */
  readonly onLog?: (label: string, line: string) => void;
}

/** What the class needs of a Worker or a child process: both are event emitters of `message`, `error` and `exit`. */
interface Sandbox {
  readonly events: EventEmitter;
  readonly output: readonly Readable[];
  post(message: unknown): void;
  stop(): Promise<void>;
}

export class FunctionSandbox {
  private sandbox!: Sandbox;
  private readonly waiting = new Map<string, (outcome: InvokeOutcome) => void>();
  private started!: Promise<void>;

  constructor(
    readonly spec: FunctionSpec,
    private readonly options: SandboxOptions,
  ) {
    this.start(spec.env);
  }

  private start(env: Record<string, string>): void {
    const at = this.spec.handler.lastIndexOf('.');
    const data: SandboxData = {
      file: path.join(this.spec.codeDir, this.spec.handler.slice(0, at)),
      exportName: this.spec.handler.slice(at + 1),
      name: this.spec.name,
      arn: `arn:aws:lambda:${env.AWS_REGION}:000000000000:function:${this.spec.name}`,
      memoryMb: this.spec.memoryMb,
      nodePath: this.options.nodePath,
    };
    const sandbox = (this.sandbox = this.options.isolation === 'process' ? processSandbox(data, env, this.spec.codeDir) : threadSandbox(data, env));
    /** Error lines written before it was ready: why it did not start. */
    const errors: string[] = [];
    let starting = true;
    for (const stream of sandbox.output) {
      let buffered = '';
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (starting && /^\w*Error\b/.test(line)) errors.push(line);
          if (line.trim()) this.options.onLog?.(this.spec.label, line);
        }
      });
    }
    const failedToStart = (why: string) => new Error(`The ${this.spec.label} function (${this.spec.name}) failed to start: ${why}`);
    this.started = new Promise<void>((resolve, reject) => {
      sandbox.events.once('message', () => {
        starting = false;
        resolve();
      });
      sandbox.events.once('error', (error: Error) => reject(failedToStart(error.message)));
      // A process that throws while loading its code only exits; its error is on its stderr.
      sandbox.events.once('exit', (code: number | null) => reject(failedToStart(`exited with code ${code}${errors.length ? `: ${errors[0]}` : ''}`)));
    });
    this.started.catch(() => undefined);
    sandbox.events.on('message', (message: { id?: string } & InvokeOutcome) => {
      if (message.id === undefined) return;
      const resolve = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      resolve?.(message);
    });
    sandbox.events.on('error', (error: Error) => this.failAll(error));
    sandbox.events.on('exit', (code: number | null) => this.failAll(new Error(`exited with code ${code}`)));
  }

  ready(): Promise<void> {
    return this.started;
  }

  /**
   * Invokes the function with `event`; `options.clientContext` becomes `context.clientContext`, as
   * Lambda gives a caller's client context to the function (AgentCore Gateway names the tool there).
   */
  async invoke(event: unknown, options: { readonly clientContext?: unknown } = {}): Promise<InvokeOutcome> {
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
      this.sandbox.post({ id, event, requestId: randomUUID(), timeoutMs, clientContext: options.clientContext });
    });
  }

  /** A new sandbox with environment changes (the demo's short approval TTL). */
  async restart(overrides: Record<string, string>): Promise<void> {
    await this.stop();
    this.start({ ...this.spec.env, ...overrides });
    await this.started;
  }

  async stop(): Promise<void> {
    this.sandbox.events.removeAllListeners('exit');
    await this.sandbox.stop();
    // Invokes still running end now, not at their timeout (whose timer would keep the process up).
    this.failAll(new Error('stopped'));
  }

  private failAll(error: Error): void {
    for (const [id, resolve] of this.waiting) {
      this.waiting.delete(id);
      resolve({ ok: false, error: { errorType: 'Runtime.ExitError', errorMessage: `${this.spec.label}: ${error.message}` } });
    }
  }
}

function threadSandbox(data: SandboxData, env: Record<string, string>): Sandbox {
  const worker = new Worker(SANDBOX_SCRIPT, { eval: true, env: { ...env, NODE_PATH: data.nodePath }, workerData: data, stdout: true, stderr: true });
  return {
    events: worker,
    output: [worker.stdout, worker.stderr],
    post: (message) => worker.postMessage(message),
    stop: async () => {
      await worker.terminate();
    },
  };
}

/** A `node` process with only the function's environment (and PATH), in the code's folder as Lambda's `/var/task`. */
function processSandbox(data: SandboxData, env: Record<string, string>, codeDir: string): Sandbox {
  const child = spawn(process.execPath, ['-e', SANDBOX_SCRIPT, JSON.stringify(data)], {
    cwd: codeDir,
    env: { PATH: process.env.PATH ?? '', ...env, NODE_PATH: data.nodePath },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // `exit` once its output is all read (`close`), so that why it ended is known when it is reported.
  const events = new EventEmitter();
  child.on('message', (message) => events.emit('message', message));
  child.on('error', (error) => events.emit('error', error));
  child.on('close', (code) => events.emit('exit', code));
  return {
    events,
    output: [child.stdout!, child.stderr!],
    post: (message) => child.send(message as object),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

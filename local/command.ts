/**
 * `cdk-tool-handler local`: synthesizes (or takes `--assembly`), starts the local run, sends the
 * envelopes, prints replies and reply-bus events, and keeps serving the approvals API (for
 * `approvals ... --local`) until Ctrl-C, unless `--once`. `local demo` runs the demo instead.
 */
import * as fs from 'node:fs';
import { CliError, EXIT_FAILED, EXIT_OK, UsageError } from '../console/errors';
import { printableJson } from '../console/escape';
import { writeLine, type CliIo } from '../console/io';
import type { ApproveMode } from './approve-modes';
import { DEFAULT_CALL_TIMEOUT_S, readCallsFile, reportCalls, runCalls, type CallLine } from './calls';
import { runDemo } from './demo';
import { interrupted, interruption, unlessInterrupted } from './interrupt';
import { DEFAULT_MCP_PORT, startMcpServer, type LocalMcpServer } from './mcp-server';
import { loadDynalite, sdkNodePath } from './modules';
import { flowEngines, type FlowEngines } from './flow-engines';
import { runFlow } from './flow-run';
import { formatLine, isNews, type LocalLine } from './print';
import { LocalRun } from './runtime';
import { auditFileFor, mcpToken, removeState, statePath, writeState } from './state';
import { assemblyNamedByApp, synthesize } from './synth';

/** What `cdk-tool-handler local [demo]` is asked to do (the CLI parses it from the command line). */
export interface LocalOptions {
  /** `local demo`: the sample's whole lifecycle, step by step. */
  readonly demo: boolean;
  readonly app?: string;
  readonly assembly?: string;
  readonly stack?: string;
  readonly handler?: string;
  readonly json: boolean;
  readonly direct: boolean;
  readonly once: boolean;
  readonly logs: boolean;
  readonly expireEverySeconds: number;
  readonly principal?: string;
  /** Envelopes, parsed (from the arguments, then `--file`). */
  readonly envelopes: readonly unknown[];
  /** `--file`'s path, read by the command. */
  readonly file?: string;
  /** `--mcp`: also serve the gateway targets' tools over MCP (Streamable HTTP) until Ctrl-C. @default false */
  readonly mcp?: boolean;
  /** `--port`: the MCP server's port; 0 picks a free one. @default DEFAULT_MCP_PORT */
  readonly port?: number;
  /** Replace the app's MCP bearer token with a new one (the old one stops working). @default false */
  readonly newMcpToken?: boolean;
  /** `--calls`: a file of envelopes, one per line, each run to its end (local/calls.ts). @default - none */
  readonly calls?: string;
  /** `--approve`: how `--calls` decides the approvals its calls ask for. @default - left undecided */
  readonly approve?: ApproveMode;
  /** `--timeout`: seconds each call of `--calls` may take. @default DEFAULT_CALL_TIMEOUT_S */
  readonly timeoutSeconds?: number;
  /** `--flow`: a state machine of the stack to run to its end (local/flow-run.ts). @default - none */
  readonly flow?: string;
  /** `--input`: that state machine's input. @default {} */
  readonly flowInput?: unknown;
}

export async function localCommand(options: LocalOptions, io: CliIo): Promise<number> {
  const envelopes = [...options.envelopes, ...readFileEnvelopes(options.file)];
  const calls = options.calls === undefined ? undefined : readCallsFile(options.calls);
  const print = printer(options, io);
  // What the run needs besides the CLI: checked before a synth that would be wasted.
  loadDynalite();
  sdkNodePath();
  let assembly = options.assembly ?? assemblyNamedByApp(options.app, process.cwd());
  let synthesized: string | undefined;
  // SIGINT and SIGTERM stop the run cleanly from here on (local/interrupt.ts).
  const interrupt = interruption();
  try {
    if (assembly === undefined) {
      print({ type: 'info', message: `synthesizing: cdk synth${options.app ? ` --app ${JSON.stringify(options.app)}` : ''} ...` });
      const started = Date.now();
      assembly = synthesized = await synthesize({ app: options.app, cwd: process.cwd(), env: io.env, signal: interrupt.signal });
      print({ type: 'info', message: `synthesized in ${((Date.now() - started) / 1000).toFixed(1)} s` });
    } else if (!fs.existsSync(assembly)) {
      throw new CliError(`--assembly ${assembly} does not exist.`);
    }
    return await runAssembly(options, assembly, envelopes, io, print, { calls, signal: interrupt.signal });
  } finally {
    interrupt.dispose();
    // The temporary assembly of our own synth goes with the run.
    if (synthesized) fs.rmSync(synthesized, { recursive: true, force: true });
  }
}

async function runAssembly(
  options: LocalOptions,
  assembly: string,
  envelopes: readonly unknown[],
  io: CliIo,
  print: (line: LocalLine) => void,
  scripted: { readonly calls?: readonly CallLine[]; readonly signal: AbortSignal },
): Promise<number> {
  const { calls, signal } = scripted;
  // A flow's tasks are completed through the run's endpoints (signed with its keys), where the flow run waits.
  const engines = options.flow === undefined ? undefined : flowEngines();
  const run = await LocalRun.start({
    flowEngines: engines,
    assembly,
    stack: options.stack,
    handler: options.handler,
    principal: options.principal,
    expireEverySeconds: options.demo ? Math.min(options.expireEverySeconds, 0.5) : options.expireEverySeconds,
    print,
  });
  let mcp: LocalMcpServer | undefined;
  try {
    if (signal.aborted) throw interrupted(signal);
    if (calls) {
      const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_CALL_TIMEOUT_S;
      return reportCalls(await runCalls(run, calls, { approve: options.approve, timeoutSeconds, signal }), io, options.json, signal);
    }
    if (options.demo) return (await unlessInterrupted(signal, runDemo(run, print))) ? EXIT_OK : EXIT_FAILED;
    if (engines && options.flow !== undefined) return await runFlowCommand(run, engines, options, io, print, signal);
    if (envelopes.length > 0) {
      await unlessInterrupted(signal, run.send(envelopes, { direct: options.direct }).then(() => run.settled()));
    }
    if (options.once) return EXIT_OK;
    mcp = options.mcp
      ? await startMcpServer(run, { port: options.port ?? DEFAULT_MCP_PORT, print, token: mcpToken(io.env, { rotate: options.newMcpToken }) })
      : undefined;
    await serve(run, io, print, signal);
    return EXIT_OK;
  } finally {
    await mcp?.close();
    await run.stop();
  }
}

/**
 * `local --flow ID --input JSON`: runs the state machine to its end while the approvals API serves
 * `approvals ... --local` (a flow that waits for an approval waits for someone to decide it), and
 * prints how it ended; exits 1 when the flow failed.
 */
async function runFlowCommand(
  run: LocalRun,
  engines: FlowEngines,
  options: LocalOptions,
  io: CliIo,
  print: (line: LocalLine) => void,
  signal: AbortSignal,
): Promise<number> {
  const stopServing = publishRun(run, io, print, 'the flow runs until it ends');
  try {
    const outcome = await unlessInterrupted(
      signal,
      runFlow(run, engines, { stateMachine: options.flow!, input: options.flowInput ?? {} }, (message) => print({ type: 'step', message })),
    );
    if (!outcome) return EXIT_FAILED;
    if (options.json) writeLine(io.stdout, printableJson({ type: 'flow', ...outcome }));
    return outcome.ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    stopServing();
  }
}

function readFileEnvelopes(file: string | undefined): unknown[] {
  if (file === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--file ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError(`--file ${file} must hold a JSON array of envelopes.`);
  return parsed;
}

function printer(options: LocalOptions, io: CliIo): (line: LocalLine) => void {
  return (line) => {
    if (line.type === 'log' && !options.logs) return;
    // With --calls, stdout holds the calls' results only (local/calls.ts): the run's own lines go to stderr.
    const progress = options.calls === undefined ? io.stdout : io.stderr;
    if (options.json) {
      writeLine(line.type === 'log' ? io.stderr : progress, printableJson(line));
      return;
    }
    if (!isNews(line)) return;
    writeLine(line.type === 'log' || line.type === 'info' ? io.stderr : progress, formatLine(line));
  };
}

/** Keeps the run up for `approvals --local` until SIGINT or SIGTERM (the command's `signal` aborts). */
async function serve(run: LocalRun, io: CliIo, print: (line: LocalLine) => void, signal: AbortSignal): Promise<void> {
  const stopServing = publishRun(run, io, print, 'Ctrl-C to stop');
  try {
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    stopServing();
  }
}

/** Tells `approvals ... --local` where this run's approvals API is (the state file); returns what takes it back. */
function publishRun(run: LocalRun, io: CliIo, print: (line: LocalLine) => void, until: string): () => void {
  const file = statePath(io.env);
  if (run.apiUrl) {
    const { approver } = run;
    const audit = auditFileFor(file);
    run.keepAuditIn(audit);
    writeState(file, {
      url: run.apiUrl,
      region: run.region,
      accessKeyId: approver.accessKeyId,
      secretAccessKey: approver.secretAccessKey,
      principal: approver.userArn,
      stack: run.stackName,
      pid: process.pid,
      audit,
      calls: { endpoint: run.caller.endpoint, functionName: run.caller.functionName, accessKeyId: run.caller.accessKeyId, secretAccessKey: run.caller.secretAccessKey },
    });
    print({
      type: 'info',
      message:
        `serving: decide with \`cdk-tool-handler approvals list --local\` and \`approvals approve ID --local\` ` +
        `(as ${approver.userArn}), send more calls with \`cdk-tool-handler local call '<envelope>'\`; ${until}.`,
    });
  } else {
    print({ type: 'info', message: `serving (the stack has no approvals API); ${until}.` });
  }
  return () => removeState(file);
}

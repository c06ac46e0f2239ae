/**
 * `cdk-tool-handler local --calls FILE [--approve all|none] [--timeout S]`: the loop a user would
 * otherwise script around `local` (call, see it pending, decide, see the resume's result), over the
 * user's own envelopes. Each line of FILE is one envelope, sent as a direct invoke of the handler;
 * every approval a call asks for is decided as `--approve` says, through the local approvals API as
 * the run's approver (SigV4-signed, as `approvals approve|deny --local` would); the resume then
 * arrives as the stack's resume path sends it. One result line per call, in FILE's order.
 */
import * as fs from 'node:fs';
import { EXIT_FAILED, EXIT_OK, UsageError } from '../console/errors';
import { escapeText as t, printableJson } from '../console/escape';
import { writeLine, type CliIo } from '../console/io';
import type { ApproveMode } from './approve-modes';
import { exitCodeOf, unlessInterrupted } from './interrupt';
import type { LocalRun } from './runtime';
import { decide, localApprovalsClient, waitForReply } from './scripting';

/** `--timeout`'s default: seconds from a call's send to its last reply, a decision and its resume included. */
export const DEFAULT_CALL_TIMEOUT_S = 60;

export interface CallsOptions {
  /** How to decide every approval a call asks for; undecided when absent. */
  readonly approve?: ApproveMode;
  readonly timeoutSeconds: number;
  /** Aborted on SIGINT or SIGTERM: calls not ended by then end `interrupted`. */
  readonly signal?: AbortSignal;
}

/** One line of FILE: its envelope and where it was. */
export interface CallLine {
  readonly line: number;
  readonly envelope: unknown;
}

/** How one call ended. */
export interface CallResult {
  readonly line: number;
  readonly tool?: string;
  readonly run_id?: string;
  readonly call_id?: string;
  readonly approval_id?: string;
  readonly decision?: 'approved' | 'denied';
  /**
   * `ok`, `already_done`, `pending_approval` (asked for approval, left undecided), the error's type
   * (`ApprovalDenied`, `ToolUsageError`, `ToolNotFound`, ...), `timeout` or `interrupted`.
   */
  readonly ended: string;
  /** The reply's `result`, where it has one. */
  readonly result?: unknown;
  readonly message?: string;
  /** Ended as asked: `ok`, or `ApprovalDenied` for an approval denied by `--approve none`. */
  readonly expected: boolean;
}

/** FILE's envelopes: one JSON value per line (JSON Lines); blank lines are skipped. */
export function readCallsFile(file: string): CallLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--calls ${file}: ${(error as Error).message}`);
  }
  const calls: CallLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      calls.push({ line: i + 1, envelope: JSON.parse(raw) });
    } catch (error) {
      throw new UsageError(`--calls ${file}: line ${i + 1} is not JSON (${(error as Error).message}); the file holds one envelope per line.`);
    }
  });
  if (calls.length === 0) throw new UsageError(`--calls ${file} holds no envelope: write one JSON envelope per line.`);
  return calls;
}

/** Sends every call, decides and waits as asked; the results in FILE's order. */
export async function runCalls(run: LocalRun, calls: readonly CallLine[], options: CallsOptions): Promise<CallResult[]> {
  const client = localApprovalsClient(run);
  /** The last reply of each approval decided here (two calls with the same ids share one approval). */
  const resumes = new Map<string, Promise<any>>();
  const timeoutMs = options.timeoutSeconds * 1000;

  const settle = async (call: CallLine): Promise<CallResult> => {
    const deadline = Date.now() + timeoutMs;
    const outcome = await run.invoke(call.envelope);
    if (!outcome.ok) return ended(call, options, { ended: outcome.error.errorType, message: outcome.error.errorMessage });
    const reply = outcome.result as any;
    if (reply?.status !== 'pending_approval') return fromReply(call, options, reply);
    const id = String(reply.approval_id);
    if (!options.approve || !client) return fromReply(call, options, reply);
    const approved = options.approve === 'all';
    let resumed = resumes.get(id);
    if (!resumed) {
      const from = run.lines.length;
      resumed = decide(client, id, approved, `local --calls --approve ${options.approve}`).then(() =>
        waitForReply(run, from, (r) => r?.approval_id === id && r.status !== 'pending_approval', Math.max(0, deadline - Date.now())),
      );
      resumes.set(id, resumed);
    }
    const decision = approved ? 'approved' : 'denied';
    const last = await resumed;
    if (!last) return ended(call, options, { ...identity(reply), decision, ended: 'timeout', message: `no reply to the resume within ${options.timeoutSeconds} s` });
    return fromReply(call, options, last, decision);
  };

  return Promise.all(calls.map((call) => withLimits(call, settle(call), options)));
}

/** `work`, or `timeout` once the call's time is up, or `interrupted` once the run is stopped. */
async function withLimits(call: CallLine, work: Promise<CallResult>, options: CallsOptions): Promise<CallResult> {
  const failed = (error: unknown) => ended(call, options, { ended: 'failed', message: error instanceof Error ? error.message : String(error) });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CallResult>((resolve) => {
    timer = setTimeout(() => resolve(ended(call, options, { ended: 'timeout', message: `no last reply within ${options.timeoutSeconds} s` })), options.timeoutSeconds * 1000 + 1000);
  });
  try {
    return await unlessInterrupted(options.signal, Promise.race([work.catch(failed), timeout]));
  } catch {
    // Only the stop rejects here: the call's own failure is its `failed` result above.
    return ended(call, options, { ended: 'interrupted', message: `stopped by ${String(options.signal?.reason)}` });
  } finally {
    clearTimeout(timer);
  }
}

function identity(reply: any): Partial<CallResult> {
  return {
    tool: reply?.tool ?? undefined,
    run_id: reply?.run_id ?? undefined,
    call_id: reply?.call_id ?? undefined,
    approval_id: reply?.approval_id ?? undefined,
  };
}

function fromReply(call: CallLine, options: CallsOptions, reply: any, decision?: 'approved' | 'denied'): CallResult {
  const known = { ...identity(reply), decision };
  switch (reply?.status) {
    case 'ok':
      return ended(call, options, { ...known, ended: 'ok', result: reply.result ?? null });
    case 'already_done':
      return ended(call, options, { ...known, ended: 'already_done', ...(reply.result === undefined ? {} : { result: reply.result }) });
    case 'error':
      return ended(call, options, { ...known, ended: String(reply.error?.type ?? 'error'), message: reply.error?.message });
    case 'pending_approval':
      return ended(call, options, { ...known, ended: 'pending_approval', message: 'undecided: pass --approve all or --approve none to decide it' });
    default:
      return ended(call, options, { ...known, ended: 'unknown', message: `an answer that is not a reply: ${JSON.stringify(reply)}` });
  }
}

function ended(call: CallLine, options: CallsOptions, result: Omit<CallResult, 'line' | 'expected'>): CallResult {
  const denied = result.ended === 'ApprovalDenied' && result.decision === 'denied' && options.approve === 'none';
  const defined = Object.fromEntries(Object.entries(result).filter(([, v]) => v !== undefined)) as Omit<CallResult, 'line' | 'expected'>;
  return { line: call.line, tool: toolOf(call), ...defined, expected: result.ended === 'ok' || denied };
}

/** The tool a call's envelope names, if it names one. */
function toolOf(call: CallLine): string | undefined {
  const tool = (call.envelope as { tool?: unknown } | null)?.tool;
  return typeof tool === 'string' ? tool : undefined;
}

/**
 * One result line: `LINE TOOL ENDED [RESULT_JSON] [(APPROVAL_ID DECISION)][: MESSAGE]`, e.g.
 * `2 refund ok {"refunded":"o-1"} (apr_… approved)`; escaped as everything `local` prints.
 */
function formatCallResult(result: CallResult): string {
  const value = result.result === undefined ? '' : ` ${printableJson(result.result)}`;
  const approval = result.approval_id === undefined ? '' : ` (${t(result.approval_id)} ${result.decision ?? 'undecided'})`;
  const message = result.message === undefined ? '' : `: ${t(result.message)}`;
  return `${result.line} ${t(result.tool ?? '-')} ${t(result.ended)}${value}${approval}${message}`;
}

/** Prints the results (stdout: one line each, or JSON with `--json`) and a summary (stderr); the exit code. */
export function reportCalls(results: readonly CallResult[], io: CliIo, json: boolean, signal?: AbortSignal): number {
  for (const result of results) {
    writeLine(io.stdout, json ? printableJson({ type: 'call_result', ...result }) : formatCallResult(result));
  }
  const missed = results.filter((r) => !r.expected).length;
  writeLine(io.stderr, `calls: ${results.length - missed} of ${results.length} ended as asked${missed > 0 ? `, ${missed} did not` : ''}.`);
  if (signal?.aborted) return exitCodeOf(signal.reason);
  return missed === 0 ? EXIT_OK : EXIT_FAILED;
}

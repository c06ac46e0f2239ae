/** `cdk-tool-handler local [demo] ...`: its own options, parsed apart from `approvals`'. */
import { UsageError } from '../console/errors';
import { APPROVE_MODES, type ApproveMode } from '../local/approve-modes';
import type { LocalOptions } from '../local/command';
import { COMMON_OPTIONS, parseCommandLine } from './common-options';

/** `local` as the command line asks for it: what the local run's command takes. */
export interface LocalCommand extends LocalOptions {
  readonly kind: 'local';
}

const OPTIONS = {
  ...COMMON_OPTIONS,
  app: { type: 'string' },
  assembly: { type: 'string' },
  handler: { type: 'string' },
  direct: { type: 'boolean' },
  once: { type: 'boolean' },
  logs: { type: 'boolean' },
  'expire-every': { type: 'string' },
  principal: { type: 'string' },
  file: { type: 'string', short: 'f' },
  mcp: { type: 'boolean' },
  port: { type: 'string' },
  'new-mcp-token': { type: 'boolean' },
  calls: { type: 'string' },
  approve: { type: 'string' },
  timeout: { type: 'string' },
  flow: { type: 'string' },
  input: { type: 'string' },
} as const;

export function parseLocalCommand(argv: readonly string[]): LocalCommand | { readonly kind: 'help'; readonly topic: 'local' } {
  const { values, positionals } = parseCommandLine(argv, OPTIONS);
  if (values.help) return { kind: 'help', topic: 'local' };
  const demo = positionals[0] === 'demo';
  const texts = demo ? positionals.slice(1) : positionals;
  if (values.app !== undefined && values.assembly !== undefined) throw new UsageError('Pass either --app or --assembly, not both.');
  if (demo && (texts.length > 0 || values.file !== undefined || values.direct)) {
    throw new UsageError('`local demo` takes no envelopes (nor --file or --direct).');
  }
  const envelopes = texts.map((text, i) => {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new UsageError(`Envelope ${i + 1} is not JSON (${(error as Error).message}): ${text}`);
    }
  });
  const every = values['expire-every'] === undefined ? 1 : Number(values['expire-every']);
  if (!Number.isFinite(every) || every <= 0 || every > 300) {
    throw new UsageError(`--expire-every must be a number of seconds from 0.1 to 300, got: ${values['expire-every']}.`);
  }
  if (values.principal !== undefined && !/^arn:aws[a-z-]*:(iam|sts)::\d{12}:.+/.test(values.principal)) {
    throw new UsageError(`--principal must be an IAM or STS principal ARN, got: ${values.principal}.`);
  }
  const mcp = values.mcp === true;
  if (values.port !== undefined && !mcp) throw new UsageError('--port is the MCP server\'s port: it needs --mcp.');
  if (values['new-mcp-token'] && !mcp) throw new UsageError('--new-mcp-token replaces the MCP server\'s bearer token: it needs --mcp.');
  if (mcp && (demo || values.once)) throw new UsageError('--mcp serves until Ctrl-C: it cannot be used with `local demo` or --once.');
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new UsageError(`--port must be a port number from 0 (any free port) to 65535, got: ${values.port}.`);
  }
  const scripted = parseCallsOptions(values, { demo, mcp, envelopes: texts.length > 0 });
  const flow = parseFlowOptions(values, { demo, mcp, envelopes: texts.length > 0 });
  return {
    ...scripted,
    ...flow,
    kind: 'local',
    demo,
    app: values.app,
    assembly: values.assembly,
    stack: values.stack,
    handler: values.handler,
    json: values.json === true,
    direct: values.direct === true,
    once: values.once === true,
    logs: values.logs === true,
    expireEverySeconds: every,
    principal: values.principal,
    envelopes,
    file: values.file,
    mcp,
    port,
    newMcpToken: values['new-mcp-token'] === true,
  };
}

/** `--calls FILE [--approve all|none] [--timeout S]` (local/calls.ts), which runs on its own. */
function parseCallsOptions(
  values: { calls?: string; approve?: string; timeout?: string; file?: string; direct?: boolean; once?: boolean },
  others: { demo: boolean; mcp: boolean; envelopes: boolean },
): Pick<LocalOptions, 'calls' | 'approve' | 'timeoutSeconds'> {
  const { calls, approve, timeout } = values;
  if (calls === undefined) {
    const stray = approve !== undefined ? '--approve' : timeout !== undefined ? '--timeout' : undefined;
    if (stray) throw new UsageError(`${stray} goes with --calls FILE (it decides and times the calls of that file).`);
    return {};
  }
  if (others.demo || others.mcp || others.envelopes || values.file !== undefined || values.direct) {
    throw new UsageError('--calls takes its envelopes from its FILE only: not with `local demo`, --mcp, envelope arguments, --file or --direct.');
  }
  if (approve !== undefined && !(APPROVE_MODES as readonly string[]).includes(approve)) {
    throw new UsageError(`--approve must be ${APPROVE_MODES.join(' or ')}, got: ${approve}.`);
  }
  const seconds = timeout === undefined ? undefined : Number(timeout);
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds >= 1 && seconds <= 3600)) {
    throw new UsageError(`--timeout must be a number of seconds from 1 to 3600, got: ${timeout}.`);
  }
  return { calls, approve: approve as ApproveMode | undefined, timeoutSeconds: seconds };
}

/** `--flow ID [--input JSON]` (local/flow-run.ts): runs one state machine of the stack to its end. */
function parseFlowOptions(
  values: { flow?: string; input?: string; calls?: string; file?: string; direct?: boolean },
  others: { demo: boolean; mcp: boolean; envelopes: boolean },
): Pick<LocalOptions, 'flow' | 'flowInput'> {
  const { flow, input } = values;
  if (flow === undefined) {
    if (input !== undefined) throw new UsageError('--input is the input of the state machine that --flow runs: it needs --flow.');
    return {};
  }
  if (flow.trim() === '') throw new UsageError('--flow needs the state machine\'s construct id (or logical id), e.g. --flow RefundFlow.');
  if (others.demo || others.mcp || others.envelopes || values.calls !== undefined || values.file !== undefined || values.direct) {
    throw new UsageError('--flow runs one state machine: not with `local demo`, --mcp, --calls, envelope arguments, --file or --direct.');
  }
  let flowInput: unknown = {};
  if (input !== undefined) {
    try {
      flowInput = JSON.parse(input);
    } catch (error) {
      throw new UsageError(`--input must be JSON (the state machine's input), and is not: ${(error as Error).message}.`);
    }
  }
  return { flow, flowInput };
}

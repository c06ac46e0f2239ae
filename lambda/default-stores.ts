/**
 * Which stores an executor uses: the ones given in code, else the ones the environment configures
 * (what the construct sets). It sits above both the stores and the approvals engine's client, so
 * neither has to know the other.
 */
import { EngineApprovals } from './approvals/engine-client';
import { ownerFrom, readSeconds, type Env } from './config';
import { ENV } from './construct-contract';
import { DynamoCallStore, type DynamoApprovalStoreProps } from './stores/dynamo-call-store';
import { DynamoHandlerStore } from './stores/dynamo-handler-store';
import { isCallStore, type HandlerApprovalStore, type CallStore } from './stores/types';

/** The executor's stores and owner, as `ToolExecutor` takes them. */
export interface ExecutorStoreOptions {
  /**
   * Where approvals are kept; `false` turns approvals off (and, unless `calls` is given, duplicate
   * suppression too).
   * @default the approvals engine named by TOOL_HANDLER_APPROVALS_ENGINE, else a DynamoHandlerStore
   * on the table named by TOOL_HANDLER_APPROVALS_TABLE, else none
   */
  readonly approvals?: HandlerApprovalStore | false;
  /**
   * Duplicate-call suppression; `false` turns it off.
   * @default `approvals` when given (both built-in stores are call stores too), else the call items
   * of TOOL_HANDLER_APPROVALS_TABLE, else off
   */
  readonly calls?: CallStore | false;
  /**
   * The owner whose approvals this executor resumes.
   * @default TOOL_HANDLER_OWNER, else 'handler'
   */
  readonly owner?: string;
}

/** The stores an executor ends up with: `undefined` is off. */
export interface ChosenStores {
  readonly approvals: HandlerApprovalStore | undefined;
  readonly calls: CallStore | undefined;
  readonly owner: string;
}

/**
 * The stores of `options`, with the environment's defaults for those left out. Off is `false` for
 * both; `undefined` (or leaving the option out) means the default. State is never silently kept in
 * one container's memory.
 */
export function chooseStores(options: ExecutorStoreOptions, env: Env = process.env): ChosenStores {
  const approvalsGiven = options.approvals !== undefined;
  const callsGiven = options.calls !== undefined;
  const defaults = approvalsGiven && callsGiven ? {} : defaultStores(env);
  const calls = callsGiven ? options.calls : approvalsGiven ? options.approvals : defaults.calls;
  return {
    approvals: options.approvals === false ? undefined : (options.approvals ?? defaults.approvals),
    calls: calls !== false && isCallStore(calls) ? calls : undefined,
    owner: options.owner ?? ownerFrom(env),
  };
}

/**
 * The stores the environment configures. Approvals: the approvals engine named by
 * TOOL_HANDLER_APPROVALS_ENGINE, else a DynamoHandlerStore on TOOL_HANDLER_APPROVALS_TABLE, else
 * none. Duplicate calls: that table's call items, else none.
 */
function defaultStores(env: Env): { approvals?: HandlerApprovalStore; calls?: CallStore } {
  const tableName = env[ENV.approvalsTable]?.trim();
  const engine = env[ENV.approvalsEngine]?.trim();
  const ttlSeconds = readSeconds(ENV.approvalTtlSeconds, { allowZero: false }, env);
  const table = tableName ? { tableName, owner: ownerFrom(env), ...(ttlSeconds === undefined ? {} : { ttlSeconds }) } : undefined;
  if (engine) return { approvals: new EngineApprovals({ functionName: engine }), calls: table && new DynamoCallStore(table) };
  // The construct's bundling defines this "true": its handlers always name their engine, and their
  // bundle then carries none of the table's approval writes (APPROVALS_VIA_ENGINE; spelled out, as
  // esbuild's define matches it). Without the engine (the manifest step at synth), approvals are off.
  return process.env.TOOL_HANDLER_APPROVALS_VIA_ENGINE === 'true' ? { calls: table && new DynamoCallStore(table) } : tableStores(table);
}

/** Approvals and calls both in the table (no engine). */
function tableStores(table: DynamoApprovalStoreProps | undefined): { approvals?: HandlerApprovalStore; calls?: CallStore } {
  const store = table && new DynamoHandlerStore(table);
  return { approvals: store, calls: store };
}

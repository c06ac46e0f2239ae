/**
 * The metrics of one call, embedded in its log line: `Calls`, `Failed` and `Duration`,
 * plus `ApprovalsRequested`, `DuplicatesSuppressed` or `RateLimited` when they apply, under `[Owner]` and, for an
 * allowlisted tool, `[Owner, Tool]`. A directive is serialized once per executor and shape of line.
 */
import { ownerFrom } from '../config';
import { directive, metricsNamespace, type EmbeddedMetrics } from './emf';
import { CALL_METRICS as M, DIMENSIONS as D } from './names';

/** What a call's metrics take from the executor that ran it: its owner and its tools. */
export interface MetricsSource {
  readonly owner?: string;
  readonly toolNames?: readonly string[];
}

/** How one call ended, as its metrics count it. */
export interface CallFigures {
  /** The tool the call names, if known. */
  readonly tool: string | undefined;
  /** The delivery's allowlist; `undefined` allows the executor's tools. */
  readonly allowed: ReadonlySet<string> | undefined;
  readonly failed: boolean;
  readonly durationMs: number;
  /** A `pending_approval` reply. */
  readonly requested: boolean;
  /** A reply kept from an earlier delivery. */
  readonly duplicate: boolean;
  /** Refused by its tool's rate limit. */
  readonly rateLimited: boolean;
}

interface Scope {
  readonly owner: string;
  readonly tools: ReadonlySet<string>;
  readonly namespace: string;
  /** By variant: bit 1 with `Tool`, 2 `ApprovalsRequested`, 4 `DuplicatesSuppressed`, 8 `RateLimited`. */
  readonly directives: string[];
}

const scopes = new WeakMap<MetricsSource, Scope>();
/** Deliveries refused before an executor took them: the environment's owner, never a tool. */
const REFUSED: MetricsSource = {};

function scopeOf(source: MetricsSource): Scope {
  let scope = scopes.get(source);
  if (!scope) {
    scope = { owner: source.owner ?? ownerFrom(), tools: new Set(source.toolNames), namespace: metricsNamespace(), directives: [] };
    scopes.set(source, scope);
  }
  return scope;
}

/** Whose a call is: its executor's owner, or the environment's for a delivery refused before one took it. */
export function ownerOf(source: MetricsSource | undefined): string {
  return scopeOf(source ?? REFUSED).owner;
}

/** The call's metrics; `source` is the executor that ran it, `undefined` for a delivery refused before. */
export function callMetrics(source: MetricsSource | undefined, figures: CallFigures): EmbeddedMetrics {
  const scope = scopeOf(source ?? REFUSED);
  const { tool, requested, duplicate, rateLimited } = figures;
  const withTool = tool !== undefined && (figures.allowed ?? scope.tools).has(tool);
  const members: Record<string, string | number> = { [D.owner]: scope.owner };
  if (withTool) members[D.tool] = tool;
  members[M.calls.name] = 1;
  members[M.failed.name] = figures.failed ? 1 : 0;
  members[M.duration.name] = figures.durationMs;
  if (requested) members[M.approvalsRequested.name] = 1;
  if (duplicate) members[M.duplicatesSuppressed.name] = 1;
  if (rateLimited) members[M.rateLimited.name] = 1;
  const variant = +withTool | (+requested << 1) | (+duplicate << 2) | (+rateLimited << 3);
  const serialized = (scope.directives[variant] ??= directive(
    scope.namespace,
    withTool ? [[D.owner], [D.owner, D.tool]] : [[D.owner]],
    [
      M.calls,
      M.failed,
      M.duration,
      ...(requested ? [M.approvalsRequested] : []),
      ...(duplicate ? [M.duplicatesSuppressed] : []),
      ...(rateLimited ? [M.rateLimited] : []),
    ],
  ));
  return { directive: serialized, members };
}

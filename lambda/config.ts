/**
 * What the environment configures, read and checked in one place: the allowlist, seconds, counts,
 * the owner and the region. A value that does not parse is a configuration error naming the variable.
 */
import { configError } from './errors';
import { ENV, HANDLER_OWNER, TOOL_NAME_PATTERN } from './construct-contract';

/** Environment variables, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The region a local run falls back to, so that a missing region never fails it. */
const FALLBACK_REGION = 'us-east-1';

/**
 * The region for the SDK clients the runtime makes: `AWS_REGION` (set by Lambda), then
 * `AWS_DEFAULT_REGION` (which the SDK itself ignores), then `us-east-1`.
 */
export function resolveRegion(env: Env = process.env): string {
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || FALLBACK_REGION;
}

/** TOOL_HANDLER_OWNER, or the default owner (`handler`) when it is unset or blank. */
export function ownerFrom(env: Env = process.env): string {
  return env[ENV.owner]?.trim() || HANDLER_OWNER;
}

/**
 * The allowlist in TOOL_HANDLER_TOOLS: `undefined` when unset; a set but empty variable allows
 * nothing. Throws, naming the variable, for a name that is not a valid tool name.
 */
export function readAllowlist(env: Env = process.env): Set<string> | undefined {
  const raw = env[ENV.tools];
  if (raw === undefined) return undefined;
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  for (const name of names) {
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw configError(`${ENV.tools} must be a comma-separated list of tool names, got: ${JSON.stringify(raw)} (bad name ${JSON.stringify(name)}).`);
    }
  }
  return new Set(names);
}

/**
 * A number of seconds from the environment: `undefined` when unset or empty. Throws, naming the
 * variable, when it does not parse or is out of range.
 */
export function readSeconds(name: string, options: { allowZero: boolean }, env: Env = process.env): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!isSeconds(value, options)) throw configError(`${name} must be a number of seconds, ${range(options)}, got: ${JSON.stringify(raw)}.`);
  return value;
}

/**
 * A whole number of at least 1 from the environment (of `unit`, when the message should say what it
 * counts): `undefined` when unset or empty. Throws, naming the variable, when it is anything else.
 */
export function readCount(name: string, unit?: string, env: Env = process.env): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw configError(`${name} must be a whole number${unit ? ` of ${unit}` : ''} of at least 1, got: ${JSON.stringify(raw)}.`);
  }
  return value;
}

/** Checks a seconds option given in code the same way. */
export function checkSeconds(name: string, value: number, options: { allowZero: boolean }): number {
  if (!isSeconds(value, options)) {
    throw configError(`toolHandler \`${name}\` must be a number of seconds, ${range(options)}, got: ${String(value)}.`);
  }
  return value;
}

function isSeconds(value: unknown, options: { allowZero: boolean }): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && (value > 0 || options.allowZero);
}

function range(options: { allowZero: boolean }): string {
  return options.allowZero ? 'zero or more' : 'more than zero';
}

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolManifestEntry } from '../../lambda/construct-contract';
import { MANIFEST_SCRIPT } from './manifest-script';


/** The tools of `manifest` that `allowlist` names, in the manifest's order; undefined without a manifest. */
export function allowlistedTools(
  manifest: readonly ToolManifestEntry[] | undefined,
  allowlist: readonly string[],
): ToolManifestEntry[] | undefined {
  const allowed = new Set(allowlist);
  return manifest?.filter((tool) => allowed.has(tool.name));
}

/** What reading a bundle's manifest found. */
export type ManifestOutcome =
  | { readonly tools: ToolManifestEntry[] }
  | { readonly problem: 'load' | 'manifest' | 'timeout'; readonly message: string }
  | { readonly problem: 'missing'; readonly exports: string[] }
  | { readonly problem: 'notToolHandler'; readonly got: string };

/** Module names always stubbed: the AWS SDK, which the Lambda runtime provides. */
export const ALWAYS_STUBBED = ['@aws-sdk/', '@smithy/'];

const DEFAULT_TIMEOUT_MS = 30_000;
const cache = new Map<string, ManifestOutcome>();

export interface ReadManifestOptions {
  /** Module names (or `prefix/` prefixes) to stub besides the AWS SDK: the function's external modules. */
  readonly stubbed?: readonly string[];
  /** Caches the outcome under this key (the bundle's asset hash). @default - not cached */
  readonly cacheKey?: string;
  /** @default 30 s */
  readonly timeoutMs?: number;
}

/**
 * Loads `bundleFile` in a child `node` process (clean environment, a time limit, the SDK and the
 * external modules stubbed) and reads the manifest of its `exportName` export.
 */
export function readBundleManifest(bundleFile: string, exportName: string, options: ReadManifestOptions = {}): ManifestOutcome {
  const stubbed = [...ALWAYS_STUBBED, ...(options.stubbed ?? [])];
  const key = options.cacheKey === undefined ? undefined : JSON.stringify([options.cacheKey, exportName, stubbed]);
  const cached = key === undefined ? undefined : cache.get(key);
  if (cached) return cached;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-tool-handler-manifest-'));
  try {
    const script = path.join(dir, 'read-manifest.js');
    const out = path.join(dir, 'manifest.json');
    fs.writeFileSync(script, MANIFEST_SCRIPT);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const proc = spawnSync(process.execPath, [script, bundleFile, out, exportName, JSON.stringify(stubbed)], {
      cwd: dir,
      env: {},
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    let outcome: ManifestOutcome;
    if (fs.existsSync(out)) {
      outcome = JSON.parse(fs.readFileSync(out, 'utf8'));
    } else if (proc.error && (proc.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
      outcome = { problem: 'timeout', message: `loading it took longer than ${timeoutMs / 1000} s` };
    } else {
      const stderr = proc.stderr?.toString().trim().split('\n').slice(-5).join('\n') ?? '';
      outcome = { problem: 'load', message: `the process ended (${proc.signal ?? proc.status}) without an answer: ${stderr}` };
    }
    if (key !== undefined) cache.set(key, outcome);
    return outcome;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `externalModules` entries as stub patterns: `@scope/*` stubs everything under `@scope/`. */
export function stubPatterns(externalModules: readonly string[] | undefined): string[] {
  return (externalModules ?? []).map((name) => (name.endsWith('/*') ? name.slice(0, -1) : name));
}

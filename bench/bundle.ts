/**
 * Bundles the three handlers with the esbuild options the construct gives NodejsFunction (lib/ keeps
 * them inline in lib/bundling/handler-function.ts: `{ minify: true, sourceMap: true }` on NodejsFunction's
 * defaults for Node.js 22: platform node, target node22, CommonJS, `@aws-sdk/*` external, esbuild's
 * default main fields), and reads esbuild's metafile for what each input contributes.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { foldedConstants } from '../lambda/construct-contract';
import { OUT, ROOT } from './lib/paths';

/** What NodejsFunction runs esbuild with for the construct's function (Node.js 22, minify, source map). */
export const CONSTRUCT_ESBUILD_OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  sourcemap: true,
  external: ['@aws-sdk/*'],
  logLevel: 'warning',
  // As the construct bundles a handler without `resultOffload`.
  define: foldedConstants({ resultOffload: false }),
};

export const HANDLERS = {
  ours: 'bench/handlers/ours.ts',
  powertools: 'bench/handlers/powertools.ts',
  powertools_sqs_schema: 'bench/handlers/powertools-sqs-schema.ts',
  empty: 'bench/handlers/empty.ts',
  /** The cold-start floor: the same SDK modules and zod schemas, a hand-written loop, no library. */
  floor: 'bench/handlers/floor.ts',
  /** The sample app's own tools module (bin/tools.ts), for reference: ours.ts is it plus the bench's two tools. */
  sample: 'bin/tools.ts',
} as const;
export type HandlerName = keyof typeof HANDLERS;

export interface BundleInfo {
  readonly name: HandlerName;
  readonly file: string;
  /** Minified bytes of index.js (the source map is a separate file). */
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Bytes in the output per input file (paths relative to the repository). */
  readonly inputs: Readonly<Record<string, number>>;
}

/**
 * `size` bundles are the production handlers (`process.env.BENCH_STORE` defined as "dynamo", which
 * drops the in-memory stores); `run` bundles keep the switch, so cold start and throughput load the
 * production code and only swap the store at run time.
 */
export async function bundleHandler(name: HandlerName, kind: 'size' | 'run'): Promise<BundleInfo> {
  const outdir = path.join(OUT, kind, name);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const file = path.join(outdir, 'index.js');
  const result = await build({
    ...CONSTRUCT_ESBUILD_OPTIONS,
    absWorkingDir: ROOT,
    entryPoints: [path.join(ROOT, HANDLERS[name])],
    outfile: file,
    metafile: true,
    ...(kind === 'size' ? { define: { ...CONSTRUCT_ESBUILD_OPTIONS.define, 'process.env.BENCH_STORE': '"dynamo"' } } : {}),
  });
  const code = readFileSync(file);
  return {
    name,
    file,
    bytes: code.length,
    gzipBytes: gzipSync(code).length,
    inputs: inputsOf(result.metafile, file),
  };
}

function inputsOf(metafile: Metafile, file: string): Record<string, number> {
  const key = path.relative(ROOT, file).split(path.sep).join('/');
  const output = metafile.outputs[key];
  if (!output) throw new Error(`esbuild's metafile has no output ${key}`);
  return Object.fromEntries(Object.entries(output.inputs).map(([input, { bytesInOutput }]) => [input, bytesInOutput]));
}

/** Bytes that inputs under `prefix` put in the output. */
export function bytesUnder(info: BundleInfo, prefix: string): number {
  return Object.entries(info.inputs)
    .filter(([input]) => input.startsWith(prefix))
    .reduce((sum, [, bytes]) => sum + bytes, 0);
}

/** Output bytes per package (node_modules), per folder of ours (lambda/, bench/). */
export function bytesByOrigin(info: BundleInfo): Array<[string, number]> {
  const groups = new Map<string, number>();
  for (const [input, bytes] of Object.entries(info.inputs)) {
    const group = originOf(input);
    groups.set(group, (groups.get(group) ?? 0) + bytes);
  }
  return [...groups.entries()].sort((a, b) => b[1] - a[1]);
}

export function originOf(input: string): string {
  const inModules = input.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const parts = input.slice(inModules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  return `${input.split('/')[0]}/`;
}

/** Bytes per file under `prefix`, largest first. */
export function filesUnder(info: BundleInfo, prefix: string): Array<[string, number]> {
  return Object.entries(info.inputs)
    .filter(([input]) => input.startsWith(prefix))
    .sort((a, b) => b[1] - a[1]);
}

/** The bench's own child scripts: plain CommonJS for the `node` on this machine, packages left to node_modules. */
export async function bundleChildren(entries: readonly string[]): Promise<Record<string, string>> {
  const outdir = path.join(OUT, 'children');
  mkdirSync(outdir, { recursive: true });
  const files: Record<string, string> = {};
  await Promise.all(
    entries.map(async (entry) => {
      const name = path.basename(entry, '.ts');
      const outfile = path.join(outdir, `${name}.js`);
      await build({
        bundle: true,
        platform: 'node',
        target: `node${process.versions.node.split('.')[0]}`,
        format: 'cjs',
        packages: 'external',
        sourcemap: 'inline',
        absWorkingDir: ROOT,
        entryPoints: [path.join(ROOT, entry)],
        outfile,
        logLevel: 'warning',
      });
      files[name] = outfile;
    }),
  );
  return files;
}

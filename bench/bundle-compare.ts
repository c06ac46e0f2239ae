/**
 * `npm run bench:bundle-compare -- <from> [<to>] [--entry <file>]`: where a handler bundle's bytes
 * went between two revisions. Each revision's files (`git archive`, so the working tree is never
 * touched; `<to>` defaults to the working tree itself) are bundled as `npm run bench` bundles its size
 * figures (the construct's esbuild options, @aws-sdk/* external, the in-memory stores dropped), with
 * this checkout's node_modules, and the bytes each input file puts in the output are compared.
 *
 * The default entry is bin/tools.ts, the sample's tools module: a plain handler, whose tools use no
 * `rateLimit`, `output` nor `resultOffload` (bench/handlers/ours.ts has a rate-limited tool).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { CONSTRUCT_ESBUILD_OPTIONS } from './bundle';
import { ROOT } from './lib/paths';

interface Measured {
  readonly bytes: number;
  readonly inputs: Record<string, number>;
}

async function measure(dir: string, entry: string): Promise<Measured> {
  const outfile = path.join(mkdtempSync(path.join(os.tmpdir(), 'bundle-compare-out-')), 'index.js');
  const result = await build({
    ...CONSTRUCT_ESBUILD_OPTIONS,
    absWorkingDir: dir,
    entryPoints: [path.join(dir, entry)],
    outfile,
    metafile: true,
    define: { ...CONSTRUCT_ESBUILD_OPTIONS.define, 'process.env.BENCH_STORE': '"dynamo"' },
  });
  const bytes = readFileSync(outfile).length;
  rmSync(path.dirname(outfile), { recursive: true, force: true });
  const output = Object.values(result.metafile.outputs as Metafile['outputs']).find((o) => o.entryPoint !== undefined)!;
  // Inputs by their path in the repository (node_modules by package path), whatever the folder.
  const inputs = Object.fromEntries(Object.entries(output.inputs).map(([input, { bytesInOutput }]) => [input.replace(/^.*node_modules\//, 'node_modules/'), bytesInOutput]));
  return { bytes, inputs };
}

/** A revision's files in a temporary folder, with this checkout's node_modules. */
function checkout(revision: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-compare-'));
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive "$0" | tar -x -C "$1"`, revision, dir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const entryAt = args.indexOf('--entry');
  const entry = entryAt >= 0 ? args.splice(entryAt, 2)[1] : 'bin/tools.ts';
  const [from, to] = args;
  if (!from) throw new Error('usage: npm run bench:bundle-compare -- <from> [<to>] [--entry <file>]');
  const dirs = [checkout(from), to ? checkout(to) : ROOT];
  try {
    const [a, b] = [await measure(dirs[0], entry), await measure(dirs[1], entry)];
    const rows = [...new Set([...Object.keys(a.inputs), ...Object.keys(b.inputs)])]
      .map((input) => ({ input, from: a.inputs[input] ?? 0, to: b.inputs[input] ?? 0 }))
      .filter((row) => row.from !== row.to)
      .sort((x, y) => y.to - y.from - (x.to - x.from));
    const lines = [`${entry}: ${a.bytes} bytes at ${from}, ${b.bytes} at ${to ?? 'the working tree'} (${b.bytes - a.bytes >= 0 ? '+' : ''}${b.bytes - a.bytes})`];
    lines.push('  change   from     to  input');
    for (const row of rows) lines.push(`${String(row.to - row.from).padStart(8)} ${String(row.from).padStart(6)} ${String(row.to).padStart(6)}  ${row.input}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const dir of dirs) if (dir !== ROOT) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

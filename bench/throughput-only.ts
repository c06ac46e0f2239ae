/**
 * `npm run bench:throughput`: figure 2 of `npm run bench` alone (this library's handler against the
 * Powertools handler, taking turns in the same run), for working on the per-call path without the
 * rest of the bench. Prints the ratio; `--profile` also CPU-profiles this library's child and prints
 * where its time went; `--rounds N` changes the number of rounds (default 7).
 */
import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { bundleChildren, bundleHandler } from './bundle';
import { OUT } from './lib/paths';
import { summarizeProfile } from './profile';
import { measureThroughput } from './throughput';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const roundsAt = args.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 7;
  const [ours, powertools] = await Promise.all([bundleHandler('ours', 'run'), bundleHandler('powertools', 'run')]);
  const children = await bundleChildren(['bench/children/throughput.ts']);
  const figures = await measureThroughput(children.throughput, {
    variants: [
      { name: 'ours', bundle: ours.file },
      { name: 'powertools', bundle: powertools.file },
    ],
    batchSize: 10,
    rounds,
    warmupRounds: 2,
    batches: 2000,
  });
  const ratio = figures.ours.perSecond / figures.powertools.perSecond;
  process.stdout.write(
    `throughput, batches of 10 no-op calls (median of ${rounds} rounds): ours ${figures.ours.perSecond.toFixed(0)}/s ` +
      `(${figures.ours.min.toFixed(0)}-${figures.ours.max.toFixed(0)}), powertools ${figures.powertools.perSecond.toFixed(0)}/s ` +
      `(${figures.powertools.min.toFixed(0)}-${figures.powertools.max.toFixed(0)}): ratio ${ratio.toFixed(3)}\n`,
  );
  if (!args.includes('--profile')) return;
  const dir = path.join(OUT, 'profiles', 'ours');
  rmSync(dir, { recursive: true, force: true });
  await measureThroughput(
    children.throughput,
    { variants: [{ name: 'ours', bundle: ours.file }], batchSize: 10, rounds: 3, warmupRounds: 1, batches: 1000 },
    ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  );
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const summary = summarizeProfile(path.join(dir, file), 'lambda/');
  const pct = (value: number) => `${((100 * value) / summary.totalMs).toFixed(1).padStart(5)}%`;
  const lines = [`profile of ours (${summary.totalMs.toFixed(0)} ms sampled)`, '  self time by origin:'];
  for (const [origin, value] of summary.selfByOrigin.slice(0, 12)) lines.push(`    ${pct(value)}  ${origin}`);
  lines.push('  time charged to the innermost lambda/ frame (with what it calls):');
  for (const [fn, value] of summary.byFocusFunction.slice(0, 25)) lines.push(`    ${pct(value)}  ${fn}`);
  lines.push('  self time by function:');
  for (const [fn, value] of summary.selfByFunction.slice(0, 20)) lines.push(`    ${pct(value)}  ${fn}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

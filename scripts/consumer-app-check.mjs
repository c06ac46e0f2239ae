#!/usr/bin/env node
// A new user's first hour, as a check: a fresh app made the way today's `cdk init` makes
// it, the package installed from its packed tarball, and the README followed literally. The blocks it
// runs and writes are taken from README.md by their `<!-- consumer-app: NAME -->` markers, so the
// README's text is what is tested:
//   install      the install lines (`npx aws-cdk init ...` runs as this repository's aws-cdk CLI,
//                `cdk init app --language typescript --generate-only` then `npm install`; the
//                package's name is replaced by the tarball's path)
//   stack        lib/app-stack.ts             tools   lib/tools.ts
//   test         test/app.test.ts (the template's test, replaced)
//   calls        run as written (it writes calls.jsonl and runs `npx cdk-tool-handler local --calls`)
//   calls-output what that prints on stdout (`…` stands for any id)
// Then: `npx cdk synth`, `npx tsc --skipLibCheck false`, `npm test` twice (the snapshot is written with --ci=false,
// then matched with --ci), the calls (and again with `--approve none`). Exits non-zero, naming the
// step, when one fails; prints each step's time.
//
// Usage: node scripts/consumer-app-check.mjs [--tarball FILE] [--keep]
//   --tarball FILE  use this packed package instead of `npm run build` + `npm pack` of this checkout
//   --keep          keep the temporary folder (its path is printed)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { tarball: { type: 'string' }, keep: { type: 'boolean' } } });
const work = mkdtempSync(join(tmpdir(), 'consumer-app-'));
const app = join(work, 'app'); // the folder's name gives the template's names: AppStack, lib/app-stack.ts
const env = { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', npm_config_update_notifier: 'false' };
for (const key of Object.keys(env)) if (key.startsWith('npm_') && key !== 'npm_config_update_notifier') delete env[key];

const started = Date.now();
const timings = [];

/** Runs `label`'s body, timing it; a thrown error ends the check, naming the step. */
function step(label, body) {
  const at = Date.now();
  process.stdout.write(`[consumer-app] ${label} ...\n`);
  try {
    const result = body();
    timings.push([label, Date.now() - at]);
    return result;
  } catch (error) {
    process.stderr.write(`[consumer-app] FAILED at "${label}": ${error.message}\n(the app is kept in ${app})\n`);
    process.exit(1);
  }
}

/** Runs a command (through `sh -c` when `shell`); throws with its output unless it exits `expect`. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: options.cwd ?? app, env, encoding: 'utf8', shell: options.shell ?? false, maxBuffer: 64 << 20 });
  const expected = options.expect ?? 0;
  if (result.status !== expected) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(`\`${[command, ...args].join(' ')}\` exited ${result.status ?? result.signal}, expected ${expected}:\n${output}`);
  }
  return result;
}

/** The README block after `<!-- consumer-app: name -->`. */
function block(name) {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const match = new RegExp(`<!-- consumer-app: ${name} -->\\n\`\`\`[^\\n]*\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match) throw new Error(`README.md has no block marked <!-- consumer-app: ${name} -->`);
  return match[1];
}

/** Checks `stdout` against the README's expected lines, `…` standing for one token. */
function expectLines(stdout, expected) {
  const got = stdout.trimEnd().split('\n');
  const want = expected.trimEnd().split('\n');
  const ok = got.length === want.length && want.every((line, i) => {
    const pattern = line.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\S*');
    return new RegExp(`^${pattern}$`).test(got[i]);
  });
  if (!ok) throw new Error(`stdout differs from the README:\n--- README\n${want.join('\n')}\n--- got\n${got.join('\n')}`);
}

const tarball = values.tarball
  ? resolve(values.tarball)
  : step('build and pack this package (npm run build, npm pack)', () => {
      run('npm', ['run', 'build'], { cwd: root });
      const out = join(work, 'pack');
      mkdirSync(out);
      run('npm', ['pack', '--pack-destination', out], { cwd: root });
      return join(out, readdirSync(out).find((f) => f.endsWith('.tgz')));
    });

step('the README\'s install lines in a new, empty folder', () => {
  mkdirSync(app);
  for (const line of block('install').split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'))) {
    if (/^npx aws-cdk init app --language typescript$/.test(line.trim())) {
      run(process.execPath, [join(root, 'node_modules', 'aws-cdk', 'bin', 'cdk'), 'init', 'app', '--language', 'typescript', '--generate-only']);
      run('npm', ['install', '--no-audit', '--no-fund']);
    } else {
      run('sh', ['-c', line.replace(/(\s)cdk-tool-handler(?=\s|$)/g, `$1${tarball}`)]);
    }
  }
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  process.stdout.write(`  typescript ${pkg.devDependencies.typescript}, tsx ${pkg.devDependencies.tsx}, @swc/jest ${pkg.devDependencies['@swc/jest']}, jest ${pkg.devDependencies.jest}\n`);
  if (!pkg.devDependencies.tsx || !pkg.devDependencies['@swc/jest']) throw new Error('the template is not the one the README describes (tsx, @swc/jest)');
});

step('the README\'s stack, tools module and snapshot test', () => {
  writeFileSync(join(app, 'lib', 'app-stack.ts'), block('stack'));
  writeFileSync(join(app, 'lib', 'tools.ts'), block('tools'));
  for (const file of readdirSync(join(app, 'test'))) rmSync(join(app, 'test', file));
  writeFileSync(join(app, 'test', 'app.test.ts'), block('test'));
});

step('npx cdk synth', () => {
  run('npx', ['cdk', 'synth', '--no-notices', '-q']);
  const template = JSON.parse(readFileSync(join(app, 'cdk.out', 'AppStack.template.json'), 'utf8'));
  const handler = Object.values(template.Resources).find(
    (r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Environment?.Variables?.TOOL_HANDLER_TOOLS === 'add,refund',
  );
  if (!handler) throw new Error('the synthesized template has no handler with TOOL_HANDLER_TOOLS add,refund');
});

step('npx tsc --skipLibCheck false (the package type-checks without skipLibCheck)', () => {
  run('npx', ['tsc', '--skipLibCheck', 'false']);
});

// jest's --ci defaults to true where CI is set (as on CI machines), and then never writes a new snapshot:
// the first run is a developer's, so it says --ci=false.
step('npm test -- --ci=false (writes the snapshot), then npm test -- --ci (matches it)', () => {
  const first = run('npm', ['test', '--', '--ci=false']);
  if (!/1 (snapshot )?written/.test(first.stdout + first.stderr)) throw new Error('the first run wrote no snapshot');
  run('npm', ['test', '--', '--ci']);
});

step('the README\'s calls: npx cdk-tool-handler local --calls calls.jsonl --approve all', () => {
  const result = run('sh', ['-c', block('calls')]);
  expectLines(result.stdout, block('calls-output'));
});

step('the same calls with --approve none: the refund ends ApprovalDenied, as asked', () => {
  const result = run('npx', ['cdk-tool-handler', 'local', '--calls', 'calls.jsonl', '--approve', 'none']);
  const [add, refund, ...rest] = result.stdout.trimEnd().split('\n');
  if (add !== '1 add ok 3' || !/^2 refund ApprovalDenied \(apr_\S+ denied\): /.test(refund ?? '') || rest.length > 0) {
    throw new Error(`unexpected stdout:\n${result.stdout}`);
  }
});

const total = ((Date.now() - started) / 1000).toFixed(1);
for (const [label, ms] of timings) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${label}\n`);
process.stdout.write(`[consumer-app] passed in ${total} s\n`);
if (values.keep) process.stdout.write(`[consumer-app] kept: ${work}\n`);
else if (existsSync(work)) rmSync(work, { recursive: true, force: true });

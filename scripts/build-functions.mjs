#!/usr/bin/env node
// Builds the package's own Lambda functions, as lambda/packaged-functions.ts lists them (the approvals
// engine, API and expirer, and the Gateway interceptor, which bundles its token verifier, jose), into
// dist/functions/<name>/index.js, so that a user's synth never needs this package's TypeScript
// sources. The AWS SDK is left to the Lambda runtime.
//
//   node scripts/build-functions.mjs              build (npm run build:functions)
//   node scripts/build-functions.mjs --if-stale   build only when an output is missing or older than
//                                                 a file it was built from (the sample app's cdk.json
//                                                 runs this first, so `npx cdk synth` works straight
//                                                 after `npm ci`)
//
// Each output is written beside its place and renamed over it: a synth reading it meanwhile sees the
// old file or the new one, never half of one.
import { build } from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const registryFile = path.join(root, 'lambda', 'packaged-functions.ts');
const functions = Object.values((await loadTypeScript(registryFile)).PACKAGED_FUNCTIONS).map((fn) => fn.name);
const outputOf = (name) => path.join(root, 'dist', 'functions', name, 'index.js');
/**
 * When the last build started and the files it read (esbuild's inputs, this script, and npm's record
 * of the last install, since installed packages keep their published times): outside `files`.
 */
const inputsFile = path.join(root, 'dist', 'functions-inputs.json');

if (process.argv.includes('--if-stale') && fresh()) process.exit(0);

const startedAt = Date.now();
const inputs = new Set([fileURLToPath(import.meta.url), registryFile, path.join(root, 'node_modules', '.package-lock.json')]);
await Promise.all(
  functions.map(async (name) => {
    const result = await build({
      entryPoints: [path.join(root, 'lambda', 'functions', `${name}.ts`)],
      outfile: outputOf(name),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      minify: true,
      external: ['@aws-sdk/*'],
      legalComments: 'none',
      logLevel: 'warning',
      metafile: true,
      write: false,
      absWorkingDir: root,
    });
    for (const input of Object.keys(result.metafile.inputs)) inputs.add(path.resolve(root, input));
    for (const file of result.outputFiles) writeWhole(file.path, file.contents);
  }),
);
writeWhole(inputsFile, JSON.stringify({ startedAt, inputs: [...inputs].map((file) => path.relative(root, file)).sort() }, null, 1));

/** Whether every output exists and no input changed (or went away) since the last build. */
function fresh() {
  let built;
  try {
    built = JSON.parse(fs.readFileSync(inputsFile, 'utf8'));
  } catch {
    return false;
  }
  const newerThanBuild = (file) => {
    try {
      return fs.statSync(file).mtimeMs >= built.startedAt;
    } catch {
      return true;
    }
  };
  return functions.every((name) => fs.existsSync(outputOf(name))) && !built.inputs.some((input) => newerThanBuild(path.join(root, input)));
}

/** A TypeScript module of plain constants, compiled by esbuild and imported. */
async function loadTypeScript(file) {
  const result = await build({ entryPoints: [file], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'warning' });
  return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].contents).toString('base64')}`);
}

function writeWhole(file, contents) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

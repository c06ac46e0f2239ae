// Bundles the CLI (`cli/bin.ts`) into one file, `dist/cli/cli.js`, with the AWS SDK parts it uses
// (signer, credential chain, CloudFormation client) and the MCP SDK's server (`local --mcp`; a
// devDependency, never the runtime's) inside: the package needs neither SDK at run time.
// `local` also needs dynalite and the SDK clients the synthesized functions load: found at run time.
// Run from anywhere: node cli/build.mjs [outfile]   (default dist/cli/cli.js)
import { build } from 'esbuild';
import { chmodSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = process.argv[2] ?? join(root, 'dist', 'cli', 'cli.js');

await build({
  entryPoints: [join(root, 'cli', 'bin.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // The SDK's ES module builds: smaller once tree-shaken than its CommonJS ones.
  mainFields: ['module', 'main'],
  // `local`'s embedded DynamoDB has a native part, and `local --flow`'s Step Functions interpreter is
  // large and needed by flows only: both are found at run time (see local/modules.ts).
  // The demo's browser driver (playwright-core) likewise: a devDependency, never bundled.
  external: ['dynalite', 'aws-local-stepfunctions', 'playwright-core'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});

chmodSync(outfile, 0o755);
const bytes = statSync(outfile).size;
console.log(`${relative(root, outfile)}: ${(bytes / 1024).toFixed(1)} KB`);

#!/usr/bin/env node
// Builds the package's own Lambda functions (the approvals engine and API) into dist/functions/<name>/index.js,
// so that a user's synth never needs this package's TypeScript sources. The AWS SDK is left to the Lambda runtime.
import { build } from 'esbuild';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const functions = ['approvals-engine', 'approvals-api', 'approvals-expirer'];

await Promise.all(
  functions.map((name) =>
    build({
      entryPoints: [path.join(root, 'lambda', 'functions', `${name}.ts`)],
      outfile: path.join(root, 'dist', 'functions', name, 'index.js'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      minify: true,
      external: ['@aws-sdk/*'],
      legalComments: 'none',
      logLevel: 'warning',
    }),
  ),
);

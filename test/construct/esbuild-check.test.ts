/**
 * A missing esbuild fails synth with a message that says to install it, instead of
 * aws-cdk-lib's fallback to Docker ("Cannot connect to the Docker daemon").
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cdkLibDir, esbuildAvailable, esbuildMissingMessage } from '../../lib/esbuild-check';

test('found where aws-cdk-lib looks for it', () => {
  expect(esbuildAvailable([cdkLibDir()], '')).toBe(true);
});

test('not found from a directory without it and no esbuild on the PATH', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-esbuild-'));
  expect(esbuildAvailable([empty], empty)).toBe(false);
});

test('found on the PATH', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'no-esbuild-'));
  const bin = path.join(__dirname, '..', '..', 'node_modules', '.bin');
  expect(esbuildAvailable([empty], `${bin}:${path.dirname(process.execPath)}`)).toBe(true);
});

test('the message says to install esbuild, naming the entry and the construct', () => {
  expect(esbuildMissingMessage('/app/tools.ts', 'Stack/Tools')).toBe(
    'Stack/Tools: esbuild was not found: ToolHandler bundles `entry` (/app/tools.ts) with esbuild, and without it NodejsFunction ' +
      'falls back to Docker. Install esbuild in your project (`npm install --save-dev esbuild`), or set ' +
      '`bundling.forceDockerBundling` to bundle in Docker.',
  );
});

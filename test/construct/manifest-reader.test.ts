/**
 * The manifest runner on its own, as tests of stacks that skip bundling cannot reach it: a
 * real esbuild bundle of a tools module, written outside the repository (so nothing of its
 * node_modules resolves), loaded in a child node process with the SDK and external modules stubbed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { TOOL_MANIFEST_SYMBOL_KEY } from '../../lambda/construct-contract';
import { readBundleManifest } from '../../lib/bundling/manifest-reader';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');

function outsideRepo(name: string, code?: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-reader-')), name);
  if (code !== undefined) fs.writeFileSync(file, code);
  return file;
}

function marked(manifestBody: string, prelude = ''): string {
  return `${prelude}\nexports.handler = Object.assign(async () => 1, { [Symbol.for(${JSON.stringify(TOOL_MANIFEST_SYMBOL_KEY)})]: () => ${manifestBody} });\n`;
}

test('reads the tools of a real bundle whose @aws-sdk/* imports cannot resolve (stubbed)', () => {
  const bundle = outsideRepo('index.js');
  buildSync({ entryPoints: [FIXTURE], bundle: true, platform: 'node', format: 'cjs', external: ['@aws-sdk/*'], outfile: bundle, logLevel: 'silent' });
  expect(fs.readFileSync(bundle, 'utf8')).toMatch(/require\("@aws-sdk\/lib-dynamodb"\)/);
  const outcome = readBundleManifest(bundle, 'handler');
  expect('tools' in outcome && outcome.tools.map((t) => t.name)).toEqual(['charge', 'refund', 'lookup', 'internal']);
});

test('stubs the given external modules (exact names and scope/ prefixes), and only those', () => {
  const bundle = outsideRepo('index.js', marked('[{ name: String(typeof ext.thing) }]', "const ext = require('my-external'); require('@acme/util/deep');"));
  expect(readBundleManifest(bundle, 'handler', { stubbed: ['my-external', '@acme/'] })).toEqual({ tools: [{ name: 'function' }] });
  expect(readBundleManifest(bundle, 'handler', { stubbed: ['@acme/'] })).toMatchObject({
    problem: 'load',
    message: expect.stringMatching(/Cannot find module 'my-external'/),
  });
});

test('runs with a clean environment', () => {
  process.env.MANIFEST_READER_SECRET = 'x';
  try {
    const bundle = outsideRepo('index.js', marked('[{ name: Object.keys(process.env).join(",") }]'));
    expect(readBundleManifest(bundle, 'handler')).toEqual({ tools: [{ name: '' }] });
  } finally {
    delete process.env.MANIFEST_READER_SECRET;
  }
});

test('a module that never finishes loading is stopped at the time limit', () => {
  const bundle = outsideRepo('index.js', 'for (;;) {}');
  expect(readBundleManifest(bundle, 'handler', { timeoutMs: 1000 })).toEqual({ problem: 'timeout', message: 'loading it took longer than 1 s' });
});

test('caches per key: a second read of the same key does not run the bundle again', () => {
  const counter = outsideRepo('count.txt', '');
  const bundle = outsideRepo('index.js', marked('[]', `require('fs').appendFileSync(${JSON.stringify(counter)}, 'x');`));
  readBundleManifest(bundle, 'handler', { cacheKey: `k-${bundle}` });
  readBundleManifest(bundle, 'handler', { cacheKey: `k-${bundle}` });
  expect(fs.readFileSync(counter, 'utf8')).toBe('x');
});

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ToolHandler } from '../../lib';
import { ENV } from './helpers';

/**
 * A user's snapshot test: the same app, checked out in two places, synthesized with jest's default
 * `new App()` (a temporary output folder), must give the same asset hash. esbuild writes source map
 * paths relative to the bundling folder; the construct rewrites them relative to the project root.
 */

const RUNTIME = path.join(__dirname, '..', '..', 'lambda');

/** A checkout: its own folder (same depth for both), a lock file, esbuild, a tools module using the runtime. */
function checkout(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-'));
  fs.writeFileSync(path.join(root, 'package-lock.json'), '{}\n');
  fs.mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true });
  fs.symlinkSync(require.resolve('esbuild/bin/esbuild'), path.join(root, 'node_modules', '.bin', 'esbuild'));
  fs.writeFileSync(
    path.join(root, 'tools.ts'),
    `import { tool, toolHandler } from ${JSON.stringify(RUNTIME)};\n` +
      "export const handler = toolHandler([tool({ name: 'add', run: () => 1 })]);\n",
  );
  return root;
}

function synth(root: string): { hash: string; map: { sources: string[]; sourcesContent?: string[] } } {
  const app = new App();
  const stack = new Stack(app, 'Snapshot', { env: ENV });
  const tools = new ToolHandler(stack, 'Tools', { entry: path.join(root, 'tools.ts'), depsLockFilePath: path.join(root, 'package-lock.json'), tools: ['add'] });
  const handlerId = stack.getLogicalId(tools.lambdaFunction.node.defaultChild as CfnElement);
  const code = Template.fromStack(stack).toJSON().Resources[handlerId].Properties.Code as { S3Key: string };
  const assetDir = path.join(app.outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
  return { hash: code.S3Key, map: JSON.parse(fs.readFileSync(path.join(assetDir, 'index.js.map'), 'utf8')) };
}

describe('asset hash', () => {
  const [a, b] = [checkout(), checkout()];
  const first = synth(a);
  const second = synth(b);

  test('is the same for the same app in two checkout paths', () => {
    expect(first.hash).toBe(second.hash);
  });

  test("the source map's sources are relative to the project root and their text is embedded", () => {
    expect(first.map.sources).toContain('tools.ts');
    expect(first.map.sources.some((s) => s.includes(path.basename(os.tmpdir())))).toBe(false);
    expect(first.map.sourcesContent?.length).toBe(first.map.sources.length);
  });
});

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { failAt, messageAt } from './errors';
import { ToolHandlerProps } from './tool-handler-props';

/**
 * Throws, naming `entry` and saying to install esbuild, when the stack will bundle locally and
 * esbuild cannot be found. Skipped when bundling is skipped or Docker bundling is forced.
 */
export function checkEsbuild(scope: Construct, props: ToolHandlerProps): void {
  if (!Stack.of(scope).bundlingRequired || props.bundling?.forceDockerBundling) return;
  const searchFrom = [cdkLibDir(), __dirname, ...(props.projectRoot ? [props.projectRoot] : []), path.dirname(props.entry)];
  if (!esbuildAvailable(searchFrom)) failAt(scope.node.path, esbuildMissingText(props.entry));
}

/**
 * Whether esbuild can be found the way aws-cdk-lib's NodejsFunction looks for it: `esbuild` resolvable
 * from aws-cdk-lib's own location (or from `searchFrom`), else an `esbuild` on the PATH. Without it
 * NodejsFunction falls back to bundling in Docker, whose failure ("Cannot connect to the Docker
 * daemon") hides the cause.
 */
export function esbuildAvailable(searchFrom: readonly string[], pathEnv: string | undefined = process.env.PATH): boolean {
  for (const dir of searchFrom) {
    try {
      require.resolve('esbuild/package.json', { paths: [dir] });
      return true;
    } catch {
      // not from here
    }
  }
  const proc = spawnSync('esbuild', ['--version'], { env: { PATH: pathEnv ?? '' }, stdio: 'ignore', timeout: 10_000 });
  return proc.status === 0 && !proc.error;
}

/** Where aws-cdk-lib's bundling looks first: its own location. */
export function cdkLibDir(): string {
  return path.dirname(require.resolve('aws-cdk-lib/package.json'));
}

/** The synth error of a missing esbuild, for the construct at `nodePath`. */
export function esbuildMissingMessage(entry: string, nodePath: string): string {
  return messageAt(nodePath, esbuildMissingText(entry));
}

function esbuildMissingText(entry: string): string {
  return (
    `esbuild was not found: ToolHandler bundles \`entry\` (${entry}) with esbuild, and without it NodejsFunction ` +
    'falls back to Docker. Install esbuild in your project (`npm install --save-dev esbuild`), or set ' +
    '`bundling.forceDockerBundling` to bundle in Docker.'
  );
}

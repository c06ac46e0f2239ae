import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import type { PackagedFunctionName } from '../../lambda/packaged-functions';
import { fail } from '../errors';

/** The package's own functions (lambda/packaged-functions.ts), prebuilt by its build into `dist/functions/<name>/index.js`. */
export type PackagedFunction = PackagedFunctionName;

const PACKAGE_NAME = 'cdk-tool-handler';

/** The code of one of the package's own functions, from the package root's `dist/functions/<name>`. */
export function packagedFunctionCode(scope: IConstruct, name: PackagedFunction): lambda.Code {
  const root = packageRoot(__dirname);
  const dir = root && path.join(root, 'dist', 'functions', name);
  if (!dir || !fs.existsSync(path.join(dir, 'index.js'))) {
    fail(
      `The prebuilt ${name} function is missing (looked for dist/functions/${name}/index.js in ${root ?? `the folders above ${__dirname}`}). ` +
        'The published package ships it; in a clone of this repository run `npm run build:functions`.',
      scope,
    );
  }
  return lambda.Code.fromAsset(dir);
}

/** The nearest folder at or above `from` whose package.json names this package. */
function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      if (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name === PACKAGE_NAME) return dir;
    } catch {
      // no readable package.json here: keep looking
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

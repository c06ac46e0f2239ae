import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { fail } from './validation';

/** The package's own functions, prebuilt by its build into `dist/functions/<name>/index.js`. */
export type PackagedFunction = 'approvals-engine' | 'approvals-api';

/**
 * The code of one of the package's own functions. From the published package (`dist/lib/`) it is
 * `../functions/<name>`; from this repository's sources (`lib/`, tests), `../dist/functions/<name>`.
 */
export function packagedFunctionCode(name: PackagedFunction): lambda.Code {
  const candidates = [path.join(__dirname, '..', 'functions', name), path.join(__dirname, '..', 'dist', 'functions', name)];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'index.js')));
  if (!found) {
    fail(
      `The prebuilt ${name} function is missing (looked in ${candidates.join(' and ')}). ` +
        'The published package ships it; in a clone of this repository run `npm run build:functions`.',
    );
  }
  return lambda.Code.fromAsset(found);
}

import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root: the nearest folder above this file (or above its bundled copy) with a package.json. */
function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

export const ROOT = findRoot(__dirname);
/** Everything the bench builds: bundles, child scripts, profiles. */
export const OUT = path.join(ROOT, 'bench', '.out');
export const RESULTS_FILE = path.join(ROOT, 'bench', 'results.json');

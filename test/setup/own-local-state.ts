/**
 * Each test file's local runs keep their state in a file of that file's own. Without it, every
 * `local` started from the repository would use the same file in the user's state directory (it is
 * named after the working directory), and two test files running side by side in two workers could
 * read each other's run. Tests of the default location remove the variable themselves
 * (test/local/state-squat.test.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { STATE_VARIABLE } from '../../local/state';

process.env[STATE_VARIABLE] ??= path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'test-local-state-')), 'local.json');

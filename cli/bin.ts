/**
 * The package's `bin` (bundled by `build.mjs`, which adds the shebang): runs `main` on this process
 * and exits with its code once stdout and stderr are flushed (pipes are asynchronous on macOS, and a
 * bare `process.exit` could cut a long `list --json` short).
 */
import { main } from './main';

function exit(code: number): void {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }).then(exit, (error: unknown) => {
  process.stderr.write(`Unexpected error: ${String(error)}\n`);
  exit(1);
});

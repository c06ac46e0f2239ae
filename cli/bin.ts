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

/**
 * Started by npm (`npx cdk-tool-handler ...`, or an npm script), this process is the child of the
 * `sh -c` that npm runs it with, and npm hands a SIGTERM or SIGINT it gets to that shell only: on
 * SIGTERM the shell exits and leaves this process running under another parent (SIGINT the shell
 * waits out). So here the shell's end stands for the SIGTERM that caused it, and `local` stops
 * cleanly (local/interrupt.ts). A process not started by npm keeps running when its parent ends
 * (`nohup`, a shell that exits).
 */
function stopWithNpmShell(env: NodeJS.ProcessEnv): void {
  if (env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 200);
  watch.unref();
}

/** A reader that went away (`audit --json | head`) ends the output: nothing more to write, no stack trace. */
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

stopWithNpmShell(process.env);
main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }).then(exit, (error: unknown) => {
  process.stderr.write(`Unexpected error: ${String(error)}\n`);
  exit(1);
});

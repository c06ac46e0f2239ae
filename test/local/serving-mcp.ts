import { spawn, type ChildProcess } from 'node:child_process';
import { until } from '../support/until';
import { REPO } from './sample-assembly';

/** A `cdk-tool-handler local --mcp` serving in a child `node`, as a user starts it. */
export interface ServingMcp {
  readonly child: ChildProcess;
  /** The MCP endpoint it printed. */
  readonly url: URL;
  /** The bearer token it printed. */
  readonly token: string;
  /** What it printed so far. */
  printed(): { stdout: string; stderr: string };
  /** SIGINT, resolved once it exited (at once when it has). */
  stop(): Promise<void>;
}

/**
 * Starts the one-file CLI `bundle` as `local --assembly ASSEMBLY --mcp --port 0 ...args` with `env`,
 * in the repository (the SDK clients and dynalite resolve from its node_modules, as from an
 * installed package's), and waits until it serves.
 */
export async function serveMcp(bundle: string, assembly: string, env: NodeJS.ProcessEnv, args: readonly string[] = []): Promise<ServingMcp> {
  let stdout = '';
  let stderr = '';
  const child = spawn(process.execPath, [bundle, 'local', '--assembly', assembly, '--mcp', '--port', '0', ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const printed = () => ({ stdout, stderr });
  await until(() => stderr.includes('serving: decide with'), 'serving', printed);
  return {
    child,
    url: new URL(/mcp: serving .* at (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(stderr)![1]),
    token: /Authorization: Bearer (\S+)$/m.exec(stderr)![1],
    printed,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    },
  };
}

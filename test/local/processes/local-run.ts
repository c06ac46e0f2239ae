/**
 * A local run in a `node` process of its own, for tests that watch its memory from outside: the run
 * of the assembly in argv[2] (`LocalRun`, as `cdk-tool-handler local` starts it) with `--mcp`'s
 * server on a free port. Prints one JSON line with its endpoints and keys (`RunInProcess`), then
 * serves until SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { startMcpServer } from '../../../local/mcp-server';
import type { LocalLine } from '../../../local/print';
import { LocalRun } from '../../../local/runtime';
import type { Keys } from '../raw-aws-request';

/** What the process prints once it serves. */
export interface RunInProcess {
  readonly region: string;
  readonly functionUrl: string;
  /** Lambda's Invoke and EventBridge's PutEvents. */
  readonly awsEndpoint: string;
  readonly dynamoEndpoint: string;
  readonly mcpUrl: string;
  readonly mcpToken: string;
  readonly engineName: string;
  readonly approver: Keys;
  readonly handler: Keys;
  readonly functions: Keys;
}

async function main(): Promise<void> {
  const info: string[] = [];
  const print = (line: LocalLine) => {
    if (line.type === 'info') info.push(line.message);
  };
  const run = await LocalRun.start({ assembly: process.argv[2], print, expireEverySeconds: 60 });
  const mcp = await startMcpServer(run, { port: 0, print, token: randomBytes(32).toString('base64url') });
  const printed = info.join('\n');
  const keysOf = (keys: Keys | undefined): Keys => ({ accessKeyId: keys!.accessKeyId, secretAccessKey: keys!.secretAccessKey });
  const serving: RunInProcess = {
    region: run.region,
    functionUrl: run.apiUrl!,
    awsEndpoint: run.awsEndpointUrl,
    dynamoEndpoint: run.dynamoEndpointUrl,
    mcpUrl: /mcp: serving .* at (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(printed)![1],
    mcpToken: /Authorization: Bearer (\S+)$/m.exec(printed)![1],
    engineName: run.functionName('engine')!,
    approver: keysOf(run.approver),
    handler: keysOf(run.credentialsOf('handler')),
    functions: keysOf(run.credentialsOf('engine')),
  };
  process.stdout.write(`${JSON.stringify(serving)}\n`);
  process.once('SIGTERM', () => {
    void mcp
      .close()
      .then(() => run.stop())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

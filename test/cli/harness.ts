/** Runs the CLI in-process with captured output, a fake stdin and a controlled environment. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../cli/main';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly env: Record<string, string | undefined>;
  /** What a person types (lines); `undefined` gives a stdin that ends at once. */
  readonly input?: string;
  /** Whether stdin is a terminal. @default false */
  readonly tty?: boolean;
}

export async function runCli(argv: readonly string[], options: RunOptions): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const stdin = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  if (options.input !== undefined) stdin.write(options.input);
  stdin.end();
  const code = await main(argv, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    stdin,
    env: options.env,
  });
  return { code, stdout, stderr };
}

/** An environment with no AWS configuration at all: no files, no instance metadata, no variables. */
export function bareEnv(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'cli-env-'));
  return {
    HOME: dir,
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'missing-credentials'),
    AWS_CONFIG_FILE: join(dir, 'missing-config'),
    AWS_EC2_METADATA_DISABLED: 'true',
    PATH: process.env.PATH ?? '',
  };
}

/** `bareEnv` plus credentials in variables and a region. */
export function credentialsEnv(accessKeyId: string, secretAccessKey: string, region = 'us-east-1'): Record<string, string> {
  return { ...bareEnv(), AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_REGION: region };
}

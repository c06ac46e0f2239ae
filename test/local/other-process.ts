/**
 * Code of the tests run in a `node` process of its own, as another program on the machine would run:
 * an entry file bundled once by esbuild (with what it imports), then run with arguments.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { RawReply, RawRequest, SignedRequest } from './raw-aws-request';

const bundles: string[] = [];

/** Bundles `entry` (a path under test/local/processes) into a temporary file; `removeBundles` removes it. */
export async function bundleEntry(entry: string): Promise<string> {
  const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'local-process-')), `${path.basename(entry, '.ts')}.js`);
  bundles.push(path.dirname(outfile));
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    mainFields: ['module', 'main'],
    // The embedded DynamoDB has a native part: found at run time, as the CLI's bundle finds it.
    external: ['dynalite'],
    logLevel: 'warning',
  });
  return outfile;
}

export function removeBundles(): void {
  for (const dir of bundles.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export const SEND_REQUEST_ENTRY = path.join(__dirname, 'processes', 'send-request.ts');

/** Sends `request` from a `node` process of its own (the bundle of processes/send-request.ts). */
export async function sendFromAnotherProcess(bundle: string, request: RawRequest | SignedRequest): Promise<RawReply> {
  const { stdout } = await promisify(execFile)(process.execPath, [bundle, JSON.stringify(request)], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as RawReply;
}

export const LOCAL_RUN_ENTRY = path.join(__dirname, 'processes', 'local-run.ts');

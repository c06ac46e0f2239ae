/**
 * The sample app's cloud assembly (and the other apps of the local tests), synthesized in-process
 * (faster than `cdk synth`) with bundling:
 * the handler's asset bundled by esbuild, the engine's and API's copied from dist/functions (built
 * by `npm run build:functions`, which `npm test` runs first). Once per test file.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import { SampleStack } from '../../bin/sample-stack';
import { ToolHandler } from '../../lib';
import { runCli, type CliRun } from '../cli/harness';

export const REPO = path.join(__dirname, '..', '..');

const made: string[] = [];

/** Removes the directories this file's tests made (call in `afterAll`). */
export function removeMade(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** The assembly of an app that `build` fills, synthesized in a temporary directory that `removeMade` removes. */
export function synthesizeApp(build: (app: App) => void): string {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-assembly-'));
  made.push(outdir);
  const app = new App({ outdir });
  build(app);
  app.synth();
  return outdir;
}

export function synthesizeSample(): string {
  return synthesizeApp((app) => new SampleStack(app, 'ToolHandlerSample'));
}

/** The sample app with an AgentCore Gateway target (what `local --mcp` serves): tools `sample___add`, `sample___refund`, `sample___resume_approval`. */
export function synthesizeSampleWithGateway(): string {
  return synthesizeApp((app) => {
    const stack = new SampleStack(app, 'ToolHandlerSample');
    const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'sample', authorizerConfiguration: agentcore.GatewayAuthorizer.usingAwsIam() });
    stack.tools.addToGateway(gateway, { gatewayTargetName: 'sample' });
  });
}

/** Stack `Slow`: a ToolHandler of test/fixtures/slow-tools.ts's `slow` tool, with the given function timeout. */
export function synthesizeSlowTools(timeout: Duration): string {
  return synthesizeApp((app) => {
    new ToolHandler(new Stack(app, 'Slow'), 'Tools', { entry: path.join(__dirname, '..', 'fixtures', 'slow-tools.ts'), tools: ['slow'], timeout });
  });
}

/** A copy of `assembly` whose template `edit` changes (the assets are linked, not copied). */
export function editedAssembly(assembly: string, edit: (template: any) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-edited-'));
  made.push(dir);
  for (const name of fs.readdirSync(assembly)) {
    const from = path.join(assembly, name);
    if (name.endsWith('.template.json')) {
      const template = JSON.parse(fs.readFileSync(from, 'utf8'));
      edit(template);
      fs.writeFileSync(path.join(dir, name), JSON.stringify(template));
    } else if (fs.statSync(from).isDirectory()) {
      fs.symlinkSync(from, path.join(dir, name), 'dir');
    } else {
      fs.copyFileSync(from, path.join(dir, name));
    }
  }
  return dir;
}

/** The logical id of the resource of `type` whose id starts with `prefix`. */
export function logicalId(template: any, type: string, prefix: string): string {
  const id = Object.keys(template.Resources).find((k) => template.Resources[k].Type === type && k.startsWith(prefix));
  if (!id) throw new Error(`no ${type} ${prefix}* in the template`);
  return id;
}

/** `cdk-tool-handler <argv>` in-process, with this process's environment (the SDK is never called from here). */
export function local(argv: readonly string[], env: Record<string, string | undefined> = process.env): Promise<CliRun> {
  return runCli(argv, { env });
}

/**
 * The CLI bundled to a temporary file, for tests that start `local` as its own process, with a
 * state file of their own (`CDK_TOOL_HANDLER_LOCAL_STATE`). `build()` bundles it.
 */
export function cliFixture(): { bundle: string; stateFile: string; env: NodeJS.ProcessEnv; build(): Promise<unknown> } {
  const bundle = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'local-cli-')), 'cli.js');
  const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'local-state-')), 'local.json');
  return {
    bundle,
    stateFile,
    env: { ...process.env, CDK_TOOL_HANDLER_LOCAL_STATE: stateFile },
    build: () => promisify(execFile)(process.execPath, [path.join(REPO, 'cli', 'build.mjs'), bundle], { cwd: REPO }),
  };
}

/**
 * Sends a refund of `callId` through a running local run and waits for its `Tool Approval
 * Requested` event: the id of the approval it now waits on.
 */
export async function requestRefundApproval(
  run: { send(envelopes: unknown[]): Promise<unknown>; readonly events: ReadonlyArray<{ detailType: string; detail: unknown }> },
  runId: string,
  callId: string,
): Promise<string> {
  await run.send([{ tool: 'refund', args: { orderId: callId }, run_id: runId, call_id: callId }]);
  const end = Date.now() + 10_000;
  let event;
  while (!(event = run.events.find((e) => e.detailType === 'Tool Approval Requested' && (e.detail as { call_id?: string })?.call_id === callId))) {
    if (Date.now() > end) throw new Error(`no approval for ${callId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (event.detail as { approval_id: string }).approval_id;
}

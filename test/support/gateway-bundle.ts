/**
 * A tools fixture's real bundle (by default the Gateway fixture, test/fixtures/gateway-tools.ts) with
 * the approvals engine and API bundles behind a local Lambda endpoint, for the host bundle tests.
 * Tools append to RUNS_FILE, so runs are counted across processes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ENV } from '../../lambda/construct-contract';
import { createTestTable } from './dynamo';
import { type BundleRun, hostApprovals, invokeBundleWithOutput, type Invocation, type Outcome, sdkOnlyNodePath, synthesizeBundle } from './bundle-child';
import type { LambdaHost } from './lambda-host';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');

export interface GatewayBundle {
  readonly tableName: string;
  /** The handler's owner (`TOOL_HANDLER_OWNER`): its approvals' key space. */
  readonly owner: string;
  readonly host: LambdaHost;
  /** The tools' runs so far (`<tool>:<arg>` lines). */
  runs(): string[];
  clearRuns(): void;
  /** Runs one invocation through the bundle in a fresh process; a throw fails the test. */
  one(step: Invocation): Promise<any>;
  invoke(steps: Invocation[]): Promise<Outcome[]>;
  /** `invoke`, keeping what the bundle's process wrote (its log lines). */
  run(steps: Invocation[]): Promise<BundleRun>;
}

export interface GatewayBundleOptions {
  /** An EventBridge endpoint the handler publishes its replies to (bus `replies`). @default - no reply bus */
  readonly replyBusEndpoint?: string;
}

/** A tools module and its allowlist. */
export interface ToolsFixture {
  readonly entry: string;
  readonly tools: readonly string[];
}

const GATEWAY_FIXTURE: ToolsFixture = { entry: ENTRY, tools: ['charge', 'refund', 'lookup'] };

export async function startGatewayBundle(fixture: ToolsFixture = GATEWAY_FIXTURE, options: GatewayBundleOptions = {}): Promise<GatewayBundle> {
  const synthesized = synthesizeBundle({ entry: fixture.entry, tools: [...fixture.tools] });
  const nodePath = sdkOnlyNodePath();
  const table = await createTestTable();
  const runsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runs-')), 'runs.txt');
  fs.writeFileSync(runsFile, '');
  const { host, handlerEnv } = await hostApprovals(synthesized, table.tableName, nodePath);
  const replies: Record<string, string> = options.replyBusEndpoint
    ? { [ENV.replyBus]: 'replies', AWS_ENDPOINT_URL_EVENTBRIDGE: options.replyBusEndpoint }
    : {};
  const env = { ...handlerEnv, ...replies, RUNS_FILE: runsFile };
  const run = (steps: Invocation[]) => invokeBundleWithOutput(synthesized.bundle, env, steps, nodePath);
  const invoke = async (steps: Invocation[]) => (await run(steps)).outcomes;
  return {
    tableName: table.tableName,
    owner: synthesized.variables[ENV.owner],
    host,
    runs: () => fs.readFileSync(runsFile, 'utf8').split('\n').filter(Boolean),
    clearRuns: () => fs.writeFileSync(runsFile, ''),
    invoke,
    run,
    one: async (step) => returned((await invoke([step]))[0]),
  };
}

/** A Gateway-shaped invocation: the args as the event, the tool's name and session in `clientContext.custom`. */
export function gatewayCall(toolName: string, args: unknown, sessionId: string, requestId = `req-${Math.random()}`): Invocation {
  return { event: args, requestId, custom: { bedrockAgentCoreToolName: toolName, bedrockAgentCoreSessionId: sessionId } };
}

export function returned(outcome: Outcome): any {
  if ('threw' in outcome) throw new Error(`a Gateway call threw: ${JSON.stringify(outcome.threw)}`);
  return outcome.returned;
}

/**
 * `cdk-tool-handler local --flow <id> --input <json>`: runs a synthesized state machine of the stack
 * in aws-local-stepfunctions (the interpreter the tests use), against the local run's handler and
 * approvals. A task that sends a tool call and waits for its token (`waitForResult`) sends the
 * envelope to the handler as an SQS record, with a fresh token per task, and waits until the handler
 * (or the expirer) completes it through the run's endpoints (local/flow-engines.ts); a task that
 * invokes the handler (`invokeTask`) invokes it directly. A failure reaches the flow by its name
 * (`ToolHandler.ApprovalDenied`, ...), so its `Catch` runs as in AWS. Tokens are never printed.
 */
import { randomUUID } from 'node:crypto';
import { CliError } from '../console/errors';
import type { FlowEngines } from './flow-engines';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './intrinsics';
import { loadLocalStepFunctions } from './modules';
import { shimPromiseWithResolvers } from './promise-shim';
import type { LocalRun } from './runtime';

export interface FlowRunOptions {
  /** The state machine: its construct id, construct path, or logical id. */
  readonly stateMachine: string;
  readonly input: unknown;
}

export type FlowOutcome =
  | { readonly ok: true; readonly output: unknown }
  | { readonly ok: false; readonly error: string; readonly cause: string };

/** Node's timers overflow past about 24.8 days, and fire at once: a longer task timeout waits that long locally. */
const MAX_LOCAL_TIMEOUT_S = 2_000_000;

/** A task's failure, named as Step Functions names it (what `Catch` and `Retry` match). */
class TaskFailure extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** The state machine resource `wanted` names in the run's stack. */
export function findStateMachine(run: LocalRun, wanted: string): { logicalId: string; path: string; definition: Record<string, any> } {
  const machines = Object.entries(run.template.Resources ?? {}).filter(([, r]) => r.Type === 'AWS::StepFunctions::StateMachine');
  const pathOf = (resource: { Metadata?: Record<string, unknown> }) => String(resource.Metadata?.['aws:cdk:path'] ?? '').replace(/\/Resource$/, '');
  // A construct id at the stack's top is its logical id less the 8-character hash CDK adds.
  const byId = (id: string) => id.length === wanted.length + 8 && id.startsWith(wanted) && /^[0-9A-F]{8}$/.test(id.slice(wanted.length));
  const found = machines.filter(([id, r]) => id === wanted || byId(id) || pathOf(r as any) === wanted || pathOf(r as any).split('/').pop() === wanted);
  if (found.length !== 1) {
    const known = machines.map(([id]) => id).join(', ') || 'none';
    throw new CliError(
      found.length === 0
        ? `--flow ${wanted}: the stack has no such state machine; its state machines: ${known}.`
        : `--flow ${wanted} names ${found.length} state machines; name one by its construct path or logical id: ${known}.`,
    );
  }
  const [logicalId, resource] = found[0];
  const definition = definitionOf((resource as any).Properties ?? {}, logicalId);
  if (usesJsonata(definition)) {
    throw new CliError(
      `--flow ${wanted}: the state machine uses JSONata, which the local interpreter (aws-local-stepfunctions) does not evaluate: ` +
        'run a JSONPath state machine locally (the default query language), and try the JSONata one in AWS.',
    );
  }
  return { logicalId, path: pathOf(resource as any) || logicalId, definition };
}

/** Whether the definition, or any of its states (nested ones included), is JSONata. */
function usesJsonata(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  if ((node as { QueryLanguage?: unknown }).QueryLanguage === 'JSONata') return true;
  return Object.values(node).some(usesJsonata);
}

/** The definition as JSON, with CloudFormation's references made local values (the tasks that use them are run locally). */
function definitionOf(properties: Record<string, any>, logicalId: string): Record<string, any> {
  const raw = properties.DefinitionString ?? properties.Definition;
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && !('Fn::Join' in raw)) return raw;
  const parts: unknown[] = typeof raw === 'string' ? [raw] : (raw?.['Fn::Join']?.[1] ?? []);
  const text = parts.map((part) => (typeof part === 'string' ? part : localValue(part))).join('');
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch (error) {
    throw new CliError(`State machine ${logicalId}: its definition is not JSON once resolved locally (${(error as Error).message}).`);
  }
}

function localValue(part: unknown): string {
  const ref = (part as { Ref?: string })?.Ref;
  if (ref === 'AWS::Partition') return 'aws';
  if (ref === 'AWS::Region') return LOCAL_REGION;
  if (ref === 'AWS::AccountId') return LOCAL_ACCOUNT;
  if (ref === 'AWS::URLSuffix') return 'amazonaws.com';
  return `local-${ref ?? 'value'}`;
}

/** Every Task state of the definition, nested ones included, by name. */
function tasksOf(definition: Record<string, any>, found = new Map<string, Record<string, any>>()): Map<string, Record<string, any>> {
  for (const [name, state] of Object.entries((definition.States ?? {}) as Record<string, any>)) {
    if (state.Type === 'Task') found.set(name, state);
    for (const branch of state.Branches ?? []) tasksOf(branch, found);
    if (state.Iterator) tasksOf(state.Iterator, found);
    if (state.ItemProcessor) tasksOf(state.ItemProcessor, found);
    if (typeof state.TimeoutSeconds === 'number' && state.TimeoutSeconds > MAX_LOCAL_TIMEOUT_S) state.TimeoutSeconds = MAX_LOCAL_TIMEOUT_S;
  }
  return found;
}

/** Runs the flow to its end: its output, or the error it failed with. */
export async function runFlow(run: LocalRun, engines: FlowEngines, options: FlowRunOptions, print: (message: string) => void): Promise<FlowOutcome> {
  shimPromiseWithResolvers();
  const { StateMachine } = loadLocalStepFunctions();
  const machine = findStateMachine(run, options.stateMachine);
  const handlers: Record<string, (input: any) => Promise<any>> = {};
  for (const [name, state] of tasksOf(machine.definition)) {
    const resource = String(state.Resource ?? '');
    if (resource.endsWith(':sqs:sendMessage.waitForTaskToken')) handlers[name] = (input) => waitForResult(run, engines, name, input, print);
    else if (resource.endsWith(':lambda:invoke') || resource.startsWith('local-')) handlers[name] = (input) => invokeHandler(run, name, input, print);
    else handlers[name] = async () => {
      throw new CliError(`local --flow runs the tool handler's tasks only: state ${name} calls ${resource}.`);
    };
  }
  print(`flow ${machine.path}: started with ${JSON.stringify(options.input)}`);
  const execution = new StateMachine(machine.definition as any, { validationOptions: { checkArn: false, checkPaths: true } }).run(options.input as any, {
    overrides: { taskResourceLocalHandlers: handlers },
    // The interpreter gives every task this token; each task that waits gets a fresh one instead (waitForResult).
    context: {
      Execution: { Id: `local-${randomUUID()}`, Name: `local-${randomUUID().slice(0, 8)}`, Input: options.input as any },
      Task: { Token: 'local-token-replaced-per-task' },
    } as any,
  });
  try {
    const output = await execution.result;
    print(`flow ${machine.path}: succeeded: ${JSON.stringify(output)}`);
    return { ok: true, output };
  } catch (error) {
    const cause = (error as { cause?: Error }).cause ?? (error as Error);
    const name = cause.name || 'Error';
    print(`flow ${machine.path}: failed: ${name}: ${cause.message}`);
    return { ok: false, error: name, cause: cause.message };
  }
}

async function waitForResult(run: LocalRun, engines: FlowEngines, state: string, input: any, print: (message: string) => void): Promise<unknown> {
  const body = typeof input?.MessageBody === 'string' ? JSON.parse(input.MessageBody) : input?.MessageBody;
  if (!body || typeof body !== 'object' || body.reply_to?.kind !== 'sfn') {
    throw new CliError(`State ${state} waits for a task token but sends no envelope with reply_to: was it made by waitForResult?`);
  }
  // One token per task entry (the interpreter gives every task the same one).
  const token = `local-token-${randomUUID()}`;
  const envelope = { ...body, reply_to: { kind: 'sfn', task_token: token } };
  const completed = engines.waitForTask(token);
  print(`flow: ${state} sends ${body.tool} and waits for its result`);
  await run.send([envelope]);
  const completion = await completed;
  if (completion.ok) {
    print(`flow: ${state} completed`);
    return JSON.parse(completion.output ?? 'null');
  }
  print(`flow: ${state} failed with ${completion.error}`);
  throw new TaskFailure(completion.error ?? 'States.TaskFailed', completion.cause ?? '');
}

async function invokeHandler(run: LocalRun, state: string, input: any, print: (message: string) => void): Promise<unknown> {
  const payload = input?.Payload ?? input;
  print(`flow: ${state} invokes the handler`);
  const outcome = await run.invoke(payload);
  if (outcome.ok) return outcome.result;
  throw new TaskFailure(outcome.error.errorType, outcome.error.errorMessage);
}

/**
 * Reading a cloud assembly (`cdk.out`): the stack's template, and in it what `local` runs: each
 * `ToolHandler`'s handler function, approvals engine, API and expirer (with their asset directories),
 * the approvals table, the tool queue, and the pipe that resumes after a decision.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CliError } from '../console/errors';

export type Template = { Resources?: Record<string, Resource>; Outputs?: Record<string, unknown> };
export interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, any>;
  readonly Metadata?: Record<string, unknown>;
}

export interface StackFiles {
  readonly name: string;
  readonly template: Template;
  /** `<stack>.assets.json`, parsed. */
  readonly assets: { files?: Record<string, { displayName?: string; source?: { path?: string } }> };
  readonly dir: string;
}

/** One Lambda function of the template. */
export interface FunctionResource {
  readonly logicalId: string;
  /** The construct path (`Tools/Approvals/Engine`), from path metadata or the asset's display name. */
  readonly constructPath: string;
  /** The directory holding `index.js`. */
  readonly codeDir: string;
  readonly handler: string;
  readonly properties: Record<string, any>;
}

export interface ToolHandlerParts {
  readonly handler: FunctionResource;
  readonly engine?: FunctionResource;
  readonly api?: FunctionResource;
  readonly expirer?: FunctionResource;
  readonly tableId?: string;
  readonly table?: Record<string, any>;
  /** The queue the handler reads (its event source mapping), if any. */
  readonly queueId?: string;
  readonly pipe?: Record<string, any>;
  /** The handler's rule on the pipe's resume bus, and the rule's target on the handler's queue. */
  readonly resumeRule?: { readonly properties: Record<string, any>; readonly target: Record<string, any> };
  /** What the expirer's schedule sends it (`Target.Input`), when the template has the schedule. */
  readonly expirerInput?: unknown;
}

/** Reads the stack `name` (or the only stack) of the assembly in `dir`. */
export function readStack(dir: string, name?: string): StackFiles {
  const manifestFile = path.join(dir, 'manifest.json');
  if (!fs.existsSync(manifestFile)) throw new CliError(`${dir} is not a cloud assembly: it has no manifest.json.`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { artifacts?: Record<string, any> };
  const stacks = Object.entries(manifest.artifacts ?? {}).filter(([, a]) => a.type === 'aws:cloudformation:stack');
  if (stacks.length === 0) throw new CliError(`The cloud assembly in ${dir} holds no stack.`);
  let chosen: [string, any] | undefined;
  if (name !== undefined) {
    chosen = stacks.find(([id, a]) => id === name || a.displayName === name || a.properties?.stackName === name);
    if (!chosen) throw new CliError(`No stack ${name} in ${dir}; it has: ${stacks.map(([id]) => id).join(', ')}.`);
  } else {
    const withHandler = stacks.filter(([, a]) => hasToolHandler(readJson(path.join(dir, a.properties.templateFile))));
    if (withHandler.length === 1) chosen = withHandler[0];
    else if (withHandler.length === 0) throw new CliError(`No stack in ${dir} has a ToolHandler (a function with TOOL_HANDLER_TOOLS).`);
    else throw new CliError(`Several stacks have a ToolHandler: pass --stack with one of ${withHandler.map(([id]) => id).join(', ')}.`);
  }
  const [id, artifact] = chosen;
  const template = readJson(path.join(dir, artifact.properties.templateFile)) as Template;
  const assetsId = (artifact.dependencies ?? []).find((d: string) => manifest.artifacts?.[d]?.type === 'cdk:asset-manifest');
  const assetsFile = assetsId ? manifest.artifacts![assetsId].properties.file : `${id}.assets.json`;
  const assets = fs.existsSync(path.join(dir, assetsFile)) ? readJson(path.join(dir, assetsFile)) : { files: {} };
  return { name: artifact.displayName ?? id, template, assets, dir };
}

function readJson(file: string): any {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function hasToolHandler(template: Template): boolean {
  return Object.values(template.Resources ?? {}).some(
    (r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Environment?.Variables?.TOOL_HANDLER_TOOLS !== undefined,
  );
}

/** Every ToolHandler of the stack. */
export function findToolHandlers(stack: StackFiles): ToolHandlerParts[] {
  const resources = stack.template.Resources ?? {};
  const functions = Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id, r]) => functionResource(stack, id, r));
  const handlers = functions.filter((f) => f.properties.Environment?.Variables?.TOOL_HANDLER_TOOLS !== undefined && !isPart(f, 'Engine'));
  if (handlers.length === 0) throw new CliError(`Stack ${stack.name} has no ToolHandler (a function with TOOL_HANDLER_TOOLS).`);
  return handlers.map((handler) => {
    // The construct's own parts sit under `<construct>/Approvals/...`, next to the handler's `<construct>/Function`.
    const prefix = handler.constructPath.replace(/\/[^/]+$/, '');
    const part = (name: string) => functions.find((f) => f.constructPath === `${prefix}/Approvals/${name}`);
    const env = handler.properties.Environment?.Variables ?? {};
    const tableId = refOf(env.TOOL_HANDLER_APPROVALS_TABLE);
    const engineId = refOf(env.TOOL_HANDLER_APPROVALS_ENGINE);
    const engine = part('Engine') ?? functions.find((f) => f.logicalId === engineId);
    const queueId = Object.values(resources)
      .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && refOf(r.Properties?.FunctionName) === handler.logicalId)
      .map((r) => refOf(r.Properties?.EventSourceArn))
      .find((id) => id !== undefined && resources[id]?.Type === 'AWS::SQS::Queue');
    // One pipe per table, onto its resume bus (or, as earlier versions made, straight to the queue).
    const pipe = Object.values(resources).find((r) => {
      if (r.Type !== 'AWS::Pipes::Pipe' || tableId === undefined || refOf(r.Properties?.Source) !== tableId) return false;
      const target = refOf(r.Properties?.Target);
      return resources[target ?? '']?.Type === 'AWS::Events::EventBus' || queueId === undefined || target === queueId;
    });
    const resumeBus = refOf(pipe?.Properties?.Target);
    const resumeRule = Object.values(resources)
      .filter((r) => r.Type === 'AWS::Events::Rule' && resumeBus !== undefined && refOf(r.Properties?.EventBusName) === resumeBus)
      .flatMap((r) => ((r.Properties?.Targets ?? []) as Array<Record<string, any>>).map((target) => ({ properties: r.Properties!, target })))
      .find(({ target }) => queueId !== undefined && refOf(target.Arn) === queueId);
    const expirer = part('Expirer');
    const schedule = Object.values(resources).find(
      (r) => r.Type === 'AWS::Scheduler::Schedule' && expirer !== undefined && refOf(r.Properties?.Target?.Arn) === expirer.logicalId,
    );
    return {
      handler,
      engine,
      expirerInput: parseInput(schedule?.Properties?.Target?.Input),
      api: part('Api'),
      expirer,
      tableId,
      table: tableId ? resources[tableId]?.Properties : undefined,
      queueId,
      pipe: pipe?.Properties,
      resumeRule,
    };
  });
}

function isPart(f: FunctionResource, name: string): boolean {
  return f.constructPath.endsWith(`/Approvals/${name}`);
}

/** The logical id a `Ref` or `Fn::GetAtt` names. */
export function refOf(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return v.Ref;
    const getAtt = v['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
    if (typeof getAtt === 'string') return getAtt.split('.')[0];
  }
  return undefined;
}

function functionResource(stack: StackFiles, logicalId: string, r: Resource): FunctionResource {
  const properties = r.Properties ?? {};
  const key = properties.Code?.S3Key;
  const hash = typeof key === 'string' ? key.replace(/\.zip$/, '') : undefined;
  const asset = hash ? stack.assets.files?.[hash] : undefined;
  const metaPath = typeof r.Metadata?.['aws:cdk:path'] === 'string' ? (r.Metadata['aws:cdk:path'] as string) : undefined;
  const constructPath =
    metaPath?.replace(/^[^/]+\//, '').replace(/\/Resource$/, '') ?? asset?.displayName?.replace(/\/Code$/, '') ?? logicalId;
  const assetPath = asset?.source?.path ?? (typeof r.Metadata?.['aws:asset:path'] === 'string' ? (r.Metadata['aws:asset:path'] as string) : undefined);
  return {
    logicalId,
    constructPath,
    codeDir: assetPath ? path.resolve(stack.dir, assetPath) : '',
    handler: typeof properties.Handler === 'string' ? properties.Handler : 'index.handler',
    properties,
  };
}

function parseInput(input: unknown): unknown {
  if (typeof input !== 'string') return {};
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/**
 * Reading a cloud assembly (`cdk.out`): the stack's template, and in it what `local` runs: each
 * `ToolHandler`'s handler function, approvals engine, API and expirer (with their asset directories),
 * the approvals table, the tool queue, and the pipe that resumes after a decision. Each handler
 * names its parts in the assembly's metadata (`PARTS_METADATA_TYPE`, lambda/construct-contract.ts);
 * nothing here guesses them from construct paths.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CliError } from '../console/errors';
import { INBOX_METADATA_TYPE, PARTS_METADATA_TYPE, type InboxParts, type ToolHandlerParts as DescribedParts } from '../lambda/construct-contract';

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
  /** The stack's metadata entries by construct path (`/<stack>/...`): the manifest's and its additional metadata file's. */
  readonly metadata: Record<string, ReadonlyArray<{ type: string; data?: unknown }>>;
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
  /** The ToolHandler's construct path (`Tools`). */
  readonly constructPath: string;
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
    const withHandler = stacks.filter(([id, a]) => describedHandlers(stackMetadata(dir, id, a)).length > 0);
    if (withHandler.length === 1) chosen = withHandler[0];
    else if (withHandler.length === 0) throw new CliError(`No stack in ${dir} has a ToolHandler (its metadata describes none: synthesize it with this version of cdk-tool-handler).`);
    else throw new CliError(`Several stacks have a ToolHandler: pass --stack with one of ${withHandler.map(([id]) => id).join(', ')}.`);
  }
  const [id, artifact] = chosen;
  const template = readJson(path.join(dir, artifact.properties.templateFile)) as Template;
  const assetsId = (artifact.dependencies ?? []).find((d: string) => manifest.artifacts?.[d]?.type === 'cdk:asset-manifest');
  const assetsFile = assetsId ? manifest.artifacts![assetsId].properties.file : `${id}.assets.json`;
  const assets = fs.existsSync(path.join(dir, assetsFile)) ? readJson(path.join(dir, assetsFile)) : { files: {} };
  return { name: artifact.displayName ?? id, template, assets, dir, metadata: stackMetadata(dir, id, artifact) };
}

function readJson(file: string): any {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** A stack artifact's metadata: in the manifest, and (since aws-cdk-lib writes it apart) in its `additionalMetadataFile`. */
function stackMetadata(dir: string, id: string, artifact: any): StackFiles['metadata'] {
  const extra = typeof artifact.additionalMetadataFile === 'string' ? path.join(dir, artifact.additionalMetadataFile) : undefined;
  const fromFile = extra && fs.existsSync(extra) ? readJson(extra) : {};
  if (extra && !fs.existsSync(extra)) throw new CliError(`The cloud assembly in ${dir} lacks ${artifact.additionalMetadataFile}, the metadata of stack ${id}.`);
  return { ...(artifact.metadata ?? {}), ...fromFile };
}

/** The ToolHandlers a stack's metadata describes: each one's construct path (without the stack) and parts. */
function describedHandlers(metadata: StackFiles['metadata']): Array<{ constructPath: string; parts: DescribedParts }> {
  const found: Array<{ constructPath: string; parts: DescribedParts }> = [];
  for (const [constructPath, entries] of Object.entries(metadata)) {
    for (const entry of entries) {
      if (entry.type !== PARTS_METADATA_TYPE) continue;
      const parts = entry.data as DescribedParts;
      if (parts?.version !== 1) {
        throw new CliError(`The ToolHandler at ${constructPath} was synthesized by another version of cdk-tool-handler (parts version ${String(parts?.version)}); use that version's CLI, or synthesize it with this one.`);
      }
      found.push({ constructPath: constructPath.replace(/^\/[^/]+\/?/, ''), parts });
    }
  }
  return found;
}

/** Every ToolHandler of the stack, as its metadata describes it. */
export function findToolHandlers(stack: StackFiles): ToolHandlerParts[] {
  const resources = stack.template.Resources ?? {};
  const described = describedHandlers(stack.metadata);
  if (described.length === 0) throw new CliError(`Stack ${stack.name} has no ToolHandler (its metadata describes none: synthesize it with this version of cdk-tool-handler).`);
  return described.map(({ constructPath, parts }) => {
    const resource = (id: string | undefined, type: string) => (id !== undefined && resources[id]?.Type === type ? resources[id] : undefined);
    const fn = (id: string | undefined) => {
      const found = resource(id, 'AWS::Lambda::Function');
      return found && functionResource(stack, id!, found);
    };
    const handler = fn(parts.handler);
    if (!handler) throw new CliError(`The template of stack ${stack.name} lacks the function ${parts.handler} of ToolHandler ${constructPath}.`);
    const tableId = resource(parts.table, 'AWS::DynamoDB::Table') ? parts.table : undefined;
    const queueId = resource(parts.queue, 'AWS::SQS::Queue') ? parts.queue : undefined;
    const pipe = resource(parts.resumePipe, 'AWS::Pipes::Pipe');
    const rule = resource(parts.resumeRule, 'AWS::Events::Rule');
    const resumeRule = ((rule?.Properties?.Targets ?? []) as Array<Record<string, any>>)
      .map((target) => ({ properties: rule!.Properties!, target }))
      .find(({ target }) => queueId !== undefined && refOf(target.Arn) === queueId);
    const schedule = resource(parts.expirySchedule, 'AWS::Scheduler::Schedule');
    return {
      constructPath,
      handler,
      engine: fn(parts.engine),
      expirerInput: parseInput(schedule?.Properties?.Target?.Input),
      api: fn(parts.api),
      expirer: fn(parts.expirer),
      tableId,
      table: tableId ? resources[tableId]?.Properties : undefined,
      queueId,
      pipe: pipe?.Properties,
      resumeRule,
    };
  });
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

/** An `ApprovalsInbox` of the stack that serves `owner`, as its metadata describes it. */
export function findInbox(stack: StackFiles, owner: string): { readonly fn: FunctionResource; readonly constructPath: string } | undefined {
  const resources = stack.template.Resources ?? {};
  for (const [constructPath, entries] of Object.entries(stack.metadata)) {
    for (const entry of entries) {
      if (entry.type !== INBOX_METADATA_TYPE) continue;
      const inbox = entry.data as InboxParts;
      if (inbox?.version !== 1) {
        throw new CliError(`The ApprovalsInbox at ${constructPath} was synthesized by another version of cdk-tool-handler; synthesize it with this one.`);
      }
      const found = resources[inbox.function];
      if (!inbox.owners.includes(owner) || found?.Type !== 'AWS::Lambda::Function') continue;
      return { fn: functionResource(stack, inbox.function, found), constructPath: constructPath.replace(/^\/[^/]+\/?/, '') };
    }
  }
  return undefined;
}

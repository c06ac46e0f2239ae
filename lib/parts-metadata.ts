import { CfnElement, Stack } from 'aws-cdk-lib';
import { Construct, IConstruct } from 'constructs';
import { PARTS_METADATA_TYPE, type ToolHandlerParts } from '../lambda/construct-contract';

/** The parts of a handler, as constructs. */
export interface PartConstructs {
  readonly owner: string;
  readonly handler: IConstruct;
  readonly engine?: IConstruct;
  readonly api?: IConstruct;
  readonly expirer?: IConstruct;
  readonly table?: IConstruct;
  readonly queue?: IConstruct;
  readonly resumePipe?: IConstruct;
  readonly resumeRule?: IConstruct;
  readonly expirySchedule?: IConstruct;
}

/**
 * Describes the handler's parts in the cloud assembly (construct metadata of type
 * `PARTS_METADATA_TYPE`, documented with `ToolHandlerParts`), for the local run to read. Metadata of
 * a construct lands in the assembly's manifest, not in the template.
 */
export function describeParts(construct: Construct, parts: PartConstructs): void {
  const stack = Stack.of(construct);
  const { owner, ...rest } = parts;
  const ids: Record<string, string> = {};
  for (const [key, part] of Object.entries(rest)) {
    const id = logicalIdIn(stack, part);
    if (id !== undefined) ids[key] = id;
  }
  const described = { version: 1, owner, ...ids } as ToolHandlerParts;
  construct.node.addMetadata(PARTS_METADATA_TYPE, described);
}

/** The logical id of `part`'s resource (itself, or its default child), when it is a resource of `stack`. */
function logicalIdIn(stack: Stack, part: IConstruct | undefined): string | undefined {
  if (part === undefined) return undefined;
  const element = part instanceof CfnElement ? part : part.node.defaultChild;
  if (!(element instanceof CfnElement) || Stack.of(element) !== stack) return undefined;
  return element.logicalId;
}

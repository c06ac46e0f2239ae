import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import { RESUME_APPROVAL_TOOL, type ToolManifestEntry } from '../../lambda/construct-contract';

/**
 * A tool's input JSON Schema reduced to what AgentCore Gateway's inline schema accepts:
 * `type` (string, number, integer, boolean, object, array), `description`, `properties`,
 * `required`, `items`. Everything else is dropped (`$schema`, `additionalProperties`, formats,
 * bounds, patterns, defaults); `enum` and `const` values move into the description; a nullable
 * union becomes its non-null branch, any other union its first branch (with a warning naming the
 * path). What has no type AgentCore knows becomes `object`, with a warning.
 */

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

export type Json = { [key: string]: any };

export interface GatewayTools {
  readonly definitions: agentcore.ToolDefinition[];
  /** Advisories for the synth warnings, each naming the tool and path. */
  readonly warnings: string[];
}

/** The inline tool definitions of `tools`, in their order, with the warnings they raise. */
export function gatewayToolDefinitions(tools: readonly ToolManifestEntry[]): GatewayTools {
  const warnings: string[] = [];
  const definitions = tools.map((tool): agentcore.ToolDefinition => {
    let description = tool.description?.trim();
    if (!description) {
      warnings.push(`Tool ${tool.name} has no description, which AgentCore Gateway requires: its name is sent instead.`);
      description = tool.name;
    }
    const warn = (message: string) => warnings.push(`Tool ${tool.name}: ${message}`);
    const inputSchema = reduce(tool.inputSchema, 'args', warn);
    const outputSchema = tool.outputSchema && gatewayOutputSchema(tool, warn);
    return outputSchema ? { name: tool.name, description, inputSchema, outputSchema } : { name: tool.name, description, inputSchema };
  });
  return { definitions, warnings };
}

/**
 * A tool's output schema as the target lists it, or `undefined` with a warning where an MCP client
 * would refuse the tool's answers: an MCP output schema describes an object (`structuredContent`),
 * and a client checks every answer that is not an error against it, so a tool that may reply
 * `pending_approval` (no result yet) lists none.
 */
function gatewayOutputSchema(tool: ToolManifestEntry, warn: (message: string) => void): agentcore.SchemaDefinition | undefined {
  if (tool.approval !== 'never') {
    warn(
      'its `output` schema is not listed: it may reply pending_approval, which has no result, and MCP clients refuse an ' +
        'answer without one from a tool that lists an output schema.',
    );
    return undefined;
  }
  const reduced = reduce(tool.outputSchema!, 'result', warn);
  if (reduced.type.value !== 'object') {
    warn('its `output` schema is not listed: MCP output schemas describe objects, and its result is not one.');
    return undefined;
  }
  return reduced;
}

/** `{ type: object }` with the tool's name as description: what is sent when no manifest was read. */
export function placeholderDefinition(name: string): agentcore.ToolDefinition {
  return { name, description: name, inputSchema: { type: agentcore.SchemaDefinitionType.OBJECT } };
}

/**
 * `resume_approval`: the Gateway carries no session to a Lambda target, so repeating a
 * call opens a new approval; an agent gets the result of an approved call with this tool instead.
 */
export function resumeApprovalDefinition(): agentcore.ToolDefinition {
  return {
    name: RESUME_APPROVAL_TOOL,
    description:
      'Gets the result of a tool call that replied pending_approval, once a person has approved it: pass the ' +
      'approval_id of that reply. Answers the result, already_done with the result, or an error saying the ' +
      'approval is denied, not decided yet, or unknown.',
    inputSchema: {
      type: agentcore.SchemaDefinitionType.OBJECT,
      properties: {
        approval_id: { type: agentcore.SchemaDefinitionType.STRING, description: 'The approval_id of the pending_approval reply.' },
      },
      required: ['approval_id'],
    },
  };
}

function reduce(schema: Json, at: string, warn: (message: string) => void): agentcore.SchemaDefinition {
  const { node, type, description } = singleTyped(schema, at, warn);
  const definition: { -readonly [K in keyof agentcore.SchemaDefinition]: agentcore.SchemaDefinition[K] } = {
    type: agentcore.SchemaDefinitionType.of(type),
  };
  if (description) definition.description = description;
  if (type === 'object' && node.properties && typeof node.properties === 'object') {
    const properties: Record<string, agentcore.SchemaDefinition> = {};
    for (const [key, value] of Object.entries(node.properties as Json)) {
      properties[key] = reduce(value as Json, `${at}.${key}`, warn);
    }
    definition.properties = properties;
    if (Array.isArray(node.required)) {
      const required = node.required.filter((key: unknown) => typeof key === 'string' && key in properties);
      if (required.length > 0) definition.required = required;
    }
  }
  if (type === 'array') {
    const items = Array.isArray(node.prefixItems) ? node.prefixItems[0] : node.items;
    if (Array.isArray(node.prefixItems)) warn(`\`${at}\` is a tuple: AgentCore has no tuples, its first item's schema is sent for every item.`);
    if (items && typeof items === 'object') definition.items = reduce(items as Json, `${at}[]`, warn);
  }
  return definition;
}

/**
 * A schema node as one typed node, as the agent hosts take it (`service` names the host in the
 * warnings): its single branch (see `singleBranch`), its type (one of `TYPES`, else `object` with a
 * warning) and its description, with `enum` and `const` values moved into it.
 */
export function singleTyped(
  schema: Json,
  at: string,
  warn: (message: string) => void,
  service = 'AgentCore',
): { readonly node: Json; readonly type: string; readonly description?: string } {
  const node = singleBranch(schema, at, warn, service);
  const notes: string[] = [];
  if (typeof node.description === 'string' && node.description.trim()) notes.push(node.description.trim());
  if (Array.isArray(node.enum)) notes.push(`One of: ${node.enum.map((v: unknown) => JSON.stringify(v)).join(', ')}.`);
  if ('const' in node) notes.push(`Must be ${JSON.stringify(node.const)}.`);
  const type = typeOf(node, at, warn, service);
  return notes.length > 0 ? { node, type, description: notes.join(' ') } : { node, type };
}

/** A union (`anyOf`, `oneOf`, a type list) as one branch: the non-null one, or the first. */
function singleBranch(schema: Json, at: string, warn: (message: string) => void, service: string): Json {
  const branches: Json[] | undefined = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const nonNull = branches.filter((b) => !(b && b.type === 'null'));
    if (nonNull.length > 1) {
      warn(`\`${at}\` is a union, which ${service} does not accept: only its first branch is sent.`);
    }
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return singleBranch({ ...rest, ...(nonNull[0] ?? { type: 'null' }) }, at, warn, service);
  }
  if (Array.isArray(schema.type)) {
    const nonNull = schema.type.filter((t: unknown) => t !== 'null');
    if (nonNull.length > 1) warn(`\`${at}\` is a union, which ${service} does not accept: only its first branch is sent.`);
    return { ...schema, type: nonNull[0] ?? 'null' };
  }
  return schema;
}

function typeOf(node: Json, at: string, warn: (message: string) => void, service: string): string {
  if (typeof node.type === 'string' && TYPES.has(node.type)) return node.type;
  const values: unknown[] = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : [];
  if (values.length > 0) {
    const kinds = new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)));
    if (kinds.size === 1 && TYPES.has([...kinds][0])) return [...kinds][0];
  }
  warn(`\`${at}\` has no type ${service} accepts (${node.type === undefined ? 'any value' : JSON.stringify(node.type)}): it is sent as object.`);
  return 'object';
}

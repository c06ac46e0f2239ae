import { Annotations, Token } from 'aws-cdk-lib';
import * as bedrock from 'aws-cdk-lib/aws-bedrock';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV, type ToolManifestEntry } from '../../lambda/construct-contract';
import { AddToBedrockAgentOptions } from '../options/bedrock-agent-options';
import { fail } from '../errors';
import { Json, singleTyped } from './gateway-schema';
import { allowlistedTools } from '../bundling/manifest-reader';
import { permitBedrockAgent } from '../permissions';

/** What Bedrock accepts as a function, parameter or action group name. */
const BEDROCK_NAME = /^([0-9a-zA-Z][_-]?){1,100}$/;
/** Parameter types of function details; an object travels as a JSON string. */
const PARAMETER_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array']);
const SERVICE = 'Bedrock Agents';

/**
 * An action group's functions (function details) for the allowlisted tools of the manifest: each
 * tool's name and description, and a parameter per top-level property of its input schema, with
 * its type, description and whether it is required. A tool Bedrock would refuse is left out, and
 * every change is a synth warning on `scope` (`cdk-tool-handler:bedrockSchema`).
 */
export function bedrockFunctionSchema(
  scope: Construct,
  manifest: readonly ToolManifestEntry[] | undefined,
  allowlist: readonly string[],
): bedrock.CfnAgent.FunctionSchemaProperty {
  const warn = (message: string) => Annotations.of(scope).addWarningV2('cdk-tool-handler:bedrockSchema', message);
  if (!manifest) {
    warn('No tools manifest was read (bundling skipped): each allowlisted tool is sent to Bedrock Agents without parameters.');
  }
  const tools = allowlistedTools(manifest, allowlist) ?? allowlist.map((name): ToolManifestEntry => ({ name, inputSchema: {}, approval: 'never', readOnly: false }));
  const functions: bedrock.CfnAgent.FunctionProperty[] = [];
  for (const tool of tools) {
    if (!BEDROCK_NAME.test(tool.name)) {
      warn(`Tool ${tool.name} is left out of the action group: Bedrock accepts function names of the form ([0-9a-zA-Z][_-]?){1,100}.`);
      continue;
    }
    const parameters = parametersOf(tool, (message) => warn(`Tool ${tool.name}: ${message}`));
    if (parameters === undefined) continue;
    const description = tool.description?.trim().slice(0, 1200);
    functions.push({ name: tool.name, ...(description ? { description } : {}), ...(Object.keys(parameters).length > 0 ? { parameters } : {}) });
  }
  return { functions };
}

/** The function's parameters, or `undefined` (with a warning) when Bedrock cannot carry its args. */
function parametersOf(
  tool: ToolManifestEntry,
  warn: (message: string) => void,
): Record<string, bedrock.CfnAgent.ParameterDetailProperty> | undefined {
  const schema = tool.inputSchema as Json;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const parameters: Record<string, bedrock.CfnAgent.ParameterDetailProperty> = {};
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
    if (!BEDROCK_NAME.test(name)) {
      warn(`it is left out of the action group: its arg ${name} is not a name Bedrock accepts, ([0-9a-zA-Z][_-]?){1,100}.`);
      return undefined;
    }
    const typed = singleTyped(property as Json, `args.${name}`, warn, SERVICE);
    let type = typed.type;
    let description = typed.description ?? '';
    if (type === 'array') description = `${description} A JSON array.`.trim();
    if (!PARAMETER_TYPES.has(type)) {
      warn(`\`args.${name}\` is an object, which Bedrock Agents parameters cannot be: it is a string parameter holding the object's JSON.`);
      type = 'string';
      description = `${description} A JSON object.`.trim();
    }
    parameters[name] = { type, required: required.has(name), ...(description ? { description: description.slice(0, 500) } : {}) };
  }
  return parameters;
}

/**
 * Adds an action group over `fn` with `functionSchema` to `agent` (which must list its action groups
 * as an array, not a token), and lets the Bedrock service invoke `fn` on behalf of that agent only.
 */
export function addBedrockActionGroup(
  scope: Construct,
  permissionId: string,
  agent: bedrock.CfnAgent,
  fn: lambda.IFunction,
  functionSchema: bedrock.CfnAgent.FunctionSchemaProperty,
  options: AddToBedrockAgentOptions,
): bedrock.CfnAgent.AgentActionGroupProperty {
  const actionGroupName = options.actionGroupName ?? defaultName(scope.node.id);
  if (!Token.isUnresolved(actionGroupName) && !BEDROCK_NAME.test(actionGroupName)) {
    fail(`\`actionGroupName\` must be of the form ([0-9a-zA-Z][_-]?){1,100}, got: ${JSON.stringify(actionGroupName)}.`, scope);
  }
  const existing = agent.actionGroups ?? [];
  if (!Array.isArray(existing)) {
    fail(`\`addToBedrockAgent\`: the agent ${agent.node.path} lists its action groups as a token; give it an array (or none) to add to.`, scope);
  }
  if (existing.some((group) => (group as bedrock.CfnAgent.AgentActionGroupProperty).actionGroupName === actionGroupName)) {
    fail(`\`addToBedrockAgent\`: the agent ${agent.node.path} already has an action group named ${actionGroupName}; pass another \`actionGroupName\`.`, scope);
  }
  const group: bedrock.CfnAgent.AgentActionGroupProperty = {
    actionGroupName,
    ...(options.description === undefined ? {} : { description: options.description }),
    actionGroupExecutor: { lambda: fn.functionArn },
    functionSchema,
  };
  if (options.callerAttribute !== undefined) nameCallerAttribute(scope, fn, options.callerAttribute);
  agent.actionGroups = [...existing, group];
  permitBedrockAgent(fn, permissionId, agent);
  return group;
}

/** The caller attribute each function was given: one function reads one attribute. */
const callerAttributes = new WeakMap<lambda.IFunction, string>();

/** Sets the session attribute the function reads its (unverified) caller from. */
function nameCallerAttribute(scope: Construct, fn: lambda.IFunction, attribute: string): void {
  if (!Token.isUnresolved(attribute) && (attribute.trim() === '' || attribute.length > 256)) {
    fail(`\`callerAttribute\` must name a session attribute (1 to 256 characters), got: ${JSON.stringify(attribute)}.`, scope);
  }
  const given = callerAttributes.get(fn);
  if (given !== undefined && given !== attribute) {
    fail(
      `\`addToBedrockAgent\`: this handler already reads its caller from the session attribute ${JSON.stringify(given)}; ` +
        'a handler has one `callerAttribute`: give every agent the same.',
      scope,
    );
  }
  if (!(fn instanceof lambda.Function)) fail('`addToBedrockAgent` with `callerAttribute` sets the handler function\'s environment, which needs a lambda.Function.', scope);
  callerAttributes.set(fn, attribute);
  fn.addEnvironment(ENV.bedrockCallerAttribute, attribute);
}

function defaultName(id: string): string {
  return id.replace(/[^0-9a-zA-Z]+/g, '_').replace(/^_+/, '').slice(0, 100) || 'Tools';
}

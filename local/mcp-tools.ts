/**
 * The MCP tools an AgentCore Gateway shows for a handler, read from the synthesized template: each
 * `AWS::BedrockAgentCore::GatewayTarget` whose Lambda target is the handler contributes its inline
 * tool schema, named `<target>___<tool>`, with CloudFormation's keys (`Name`, `InputSchema`,
 * `Type`, `Properties`, ...) turned back into the JSON Schema the MCP client sees (`InputSchema`, and
 * `OutputSchema` where the target lists one).
 */
import { refOf, type Template } from './assembly';

export interface GatewayTool {
  /** `<target>___<tool>`: what `tools/list` shows and `tools/call` names. */
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
  /** The result's schema, when the target lists one: MCP's `outputSchema`. */
  readonly outputSchema?: { readonly type: 'object'; readonly [key: string]: unknown };
  /** The gateway target's logical id (what `bedrockAgentCoreTargetId` stands for locally). */
  readonly targetId: string;
  /** The gateway's logical id, when the target names it by `Ref` or `Fn::GetAtt`. */
  readonly gatewayId: string;
}

/** AgentCore's separator between the target's name and the tool's (`gateway-tool-naming` in its guide). */
const TOOL_NAME_SEPARATOR = '___';

/** The tools of every gateway target of the template whose Lambda is `handlerLogicalId`, in template order. */
export function gatewayToolsOf(template: Template, handlerLogicalId: string): GatewayTool[] {
  const tools: GatewayTool[] = [];
  for (const [targetId, resource] of Object.entries(template.Resources ?? {})) {
    if (resource.Type !== 'AWS::BedrockAgentCore::GatewayTarget') continue;
    const properties = resource.Properties ?? {};
    const lambda = properties.TargetConfiguration?.Mcp?.Lambda;
    if (refOf(lambda?.LambdaArn) !== handlerLogicalId) continue;
    const inline: unknown = lambda?.ToolSchema?.InlinePayload;
    if (!Array.isArray(inline)) continue;
    const gatewayId = refOf(properties.GatewayIdentifier) ?? '';
    for (const definition of inline) {
      tools.push({
        name: `${properties.Name}${TOOL_NAME_SEPARATOR}${definition.Name}`,
        ...(definition.Description === undefined ? {} : { description: definition.Description }),
        inputSchema: { ...jsonSchemaOf(definition.InputSchema ?? { Type: 'object' }), type: 'object' },
        ...(definition.OutputSchema === undefined ? {} : { outputSchema: { ...jsonSchemaOf(definition.OutputSchema), type: 'object' as const } }),
        targetId,
        gatewayId,
      });
    }
  }
  return tools;
}

/** A CloudFormation `SchemaDefinition` (`Type`, `Description`, `Properties`, `Required`, `Items`) as JSON Schema. */
function jsonSchemaOf(definition: Record<string, any>): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  if (definition.Type !== undefined) schema.type = definition.Type;
  if (definition.Description !== undefined) schema.description = definition.Description;
  if (definition.Properties !== undefined) {
    // Property names are the tool's own args: kept as they are, unlike the keys of the definition.
    schema.properties = Object.fromEntries(Object.entries<Record<string, any>>(definition.Properties).map(([key, value]) => [key, jsonSchemaOf(value)]));
  }
  if (definition.Required !== undefined) schema.required = definition.Required;
  if (definition.Items !== undefined) schema.items = jsonSchemaOf(definition.Items);
  return schema;
}

import type { $ZodType } from 'zod/v4/core';
import { configError } from './errors';
import type { JsonObject } from './json';
import { TOOL_MANIFEST_SYMBOL_KEY, type ToolManifestEntry } from './construct-contract';
import type { Tool } from './tool';

export type { ToolManifestEntry } from './construct-contract';

/** The marker `toolHandler` sets on its handler: calling it gives the manifest. */
export const TOOL_MANIFEST = Symbol.for(TOOL_MANIFEST_SYMBOL_KEY);

/**
 * A tool's input schema as JSON Schema: `z.toJSONSchema(input, { io: 'input', unrepresentable:
 * 'any' })`, called through the schema's own method (the top-level function would add its code to
 * every bundle). What zod cannot represent becomes "any". A `zod/mini` schema has no such method:
 * it is described as any JSON object.
 */
export function inputJsonSchema(input: $ZodType | undefined): JsonObject {
  return jsonSchemaOf(input, 'input') ?? { type: 'object' };
}

/**
 * A tool's output schema as JSON Schema, the same way (`io: 'output'`: what the result parses to);
 * `undefined` without one, or for a `zod/mini` schema, which cannot say.
 */
export function outputJsonSchema(output: $ZodType | undefined): JsonObject | undefined {
  return jsonSchemaOf(output, 'output');
}

function jsonSchemaOf(schema: $ZodType | undefined, io: 'input' | 'output'): JsonObject | undefined {
  const method = (schema as { toJSONSchema?: (params: object) => unknown } | undefined)?.toJSONSchema;
  if (!schema || typeof method !== 'function') return undefined;
  return method.call(schema, { io, unrepresentable: 'any' }) as JsonObject;
}

export function toolManifest(tools: readonly Tool<any>[]): ToolManifestEntry[] {
  return tools.map((t) => {
    const outputSchema = schemaOf(t, 'output', () => outputJsonSchema(t.output));
    return {
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      inputSchema: schemaOf(t, 'input', () => inputJsonSchema(t.input)),
      ...(outputSchema === undefined ? {} : { outputSchema }),
      approval: t.approvalMode,
      readOnly: t.readOnly,
    };
  });
}

function schemaOf<T>(t: Tool<any>, option: string, convert: () => T): T {
  try {
    return convert();
  } catch (error) {
    throw configError(`tool ${t.name} \`${option}\` has no JSON Schema form: ${(error as Error).message}`);
  }
}

/**
 * Marks `handler` with the manifest of `tools`. The manifest is built when asked for (at synth, by
 * the construct), never at a cold start.
 */
export function markWithManifest<H extends object>(handler: H, tools: readonly Tool<any>[]): H {
  Object.defineProperty(handler, TOOL_MANIFEST, { value: () => toolManifest(tools), enumerable: false });
  return handler;
}

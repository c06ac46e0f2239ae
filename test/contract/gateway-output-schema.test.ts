/**
 * The Gateway target's output schemas (AgentCore's `ToolDefinition.OutputSchema`): a tool's `output`
 * reduced as its input is, listed where an MCP client can hold the tool to it; none, with a warning
 * naming why, for a tool that may reply pending_approval or whose result is not an object.
 */
import * as z from 'zod';
import { gatewayToolDefinitions } from '../../lib/hosts/gateway-schema';
import { inputJsonSchema, outputJsonSchema } from '../../lambda/manifest';
import type { ToolManifestEntry } from '../../lambda/construct-contract';

function entry(name: string, output: z.ZodType, approval = 'never'): ToolManifestEntry {
  return { name, description: name, inputSchema: inputJsonSchema(undefined), outputSchema: outputJsonSchema(output), approval, readOnly: false };
}

/** The definitions as the L1 renders them (type objects as their strings). */
function rendered(tools: ToolManifestEntry[]) {
  const { definitions, warnings } = gatewayToolDefinitions(tools);
  return { definitions: JSON.parse(JSON.stringify(definitions, (k, v) => (k === 'type' ? v.value : v))), warnings };
}

test('an object output schema is listed, reduced as input schemas are', () => {
  const { definitions, warnings } = rendered([entry('quote', z.object({ sku: z.string(), price: z.number().min(0), note: z.string().optional() }).strict())]);
  expect(definitions[0].outputSchema).toEqual({
    type: 'object',
    properties: { sku: { type: 'string' }, price: { type: 'number' }, note: { type: 'string' } },
    required: ['sku', 'price'],
  });
  expect(warnings).toEqual([]);
});

test('a tool that may need approval lists none, and the warning says why', () => {
  const { definitions, warnings } = rendered([entry('refund', z.object({ ok: z.boolean() }), 'depends')]);
  expect(definitions[0]).not.toHaveProperty('outputSchema');
  expect(warnings).toEqual([expect.stringMatching(/^Tool refund: its `output` schema is not listed: it may reply pending_approval/)]);
});

test('a result that is not an object lists none, and the warning says why', () => {
  const { definitions, warnings } = rendered([entry('count', z.number())]);
  expect(definitions[0]).not.toHaveProperty('outputSchema');
  expect(warnings).toEqual(['Tool count: its `output` schema is not listed: MCP output schemas describe objects, and its result is not one.']);
});

test('a tool without an output schema is listed as before', () => {
  const { definitions } = rendered([{ name: 'plain', description: 'p', inputSchema: { type: 'object' }, approval: 'never', readOnly: false }]);
  expect(definitions[0]).toEqual({ name: 'plain', description: 'p', inputSchema: { type: 'object' } });
});

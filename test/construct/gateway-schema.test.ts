/**
 * The reduction of a tool's input JSON Schema to what AgentCore Gateway's inline schema accepts
 *, from zod 4's own `z.toJSONSchema`, shape by shape.
 */
import * as z from 'zod';
import { gatewayToolDefinitions } from '../../lib/hosts/gateway-schema';
import { inputJsonSchema } from '../../lambda/manifest';

function reduce(input: z.ZodType, description = 'd') {
  const { definitions, warnings } = gatewayToolDefinitions([
    { name: 't', description, inputSchema: inputJsonSchema(input), approval: 'never', readOnly: false },
  ]);
  // Render the type objects as their strings, as the L1 does.
  return { schema: JSON.parse(JSON.stringify(definitions[0].inputSchema, (k, v) => (k === 'type' ? v.value : v))), warnings };
}

test('drops formats, bounds, patterns, defaults, $schema and additionalProperties', () => {
  const { schema, warnings } = reduce(
    z.object({
      id: z.string().uuid(),
      n: z.number().int().min(0).max(9).default(1),
      code: z.string().regex(/^[A-Z]+$/).min(2),
      list: z.array(z.number()).min(1).max(3),
    }).strict(),
  );
  expect(schema).toEqual({
    type: 'object',
    properties: {
      id: { type: 'string' },
      n: { type: 'integer' },
      code: { type: 'string' },
      list: { type: 'array', items: { type: 'number' } },
    },
    required: ['id', 'code', 'list'],
  });
  expect(warnings).toEqual([]);
});

test('enum and const values move into the description, after the own description', () => {
  const { schema } = reduce(z.object({ level: z.enum(['low', 'high']).describe('How loud.'), one: z.literal(1) }));
  expect(schema.properties).toEqual({
    level: { type: 'string', description: 'How loud. One of: "low", "high".' },
    one: { type: 'number', description: 'Must be 1.' }, // zod's own type wins over the value's
  });
});

test('a nullable is its non-null branch, silently; any other union its first branch, with a warning', () => {
  const { schema, warnings } = reduce(z.object({ a: z.string().nullable(), b: z.union([z.number(), z.string()]) }));
  expect(schema.properties).toEqual({ a: { type: 'string' }, b: { type: 'number' } });
  expect(warnings).toEqual(['Tool t: `args.b` is a union, which AgentCore does not accept: only its first branch is sent.']);
});

test('nested objects in arrays keep properties and required, paths name the nesting', () => {
  const { schema, warnings } = reduce(z.object({ lines: z.array(z.object({ sku: z.string(), qty: z.union([z.number(), z.string()]).optional() })) }));
  expect(schema.properties.lines).toEqual({
    type: 'array',
    items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'number' } }, required: ['sku'] },
  });
  expect(warnings).toEqual(['Tool t: `args.lines[].qty` is a union, which AgentCore does not accept: only its first branch is sent.']);
});

test('what has no type AgentCore knows is sent as object, with a warning; a tuple as its first item', () => {
  const { schema, warnings } = reduce(z.object({ any: z.unknown(), pair: z.tuple([z.string(), z.number()]) }));
  expect(schema.properties).toEqual({ any: { type: 'object' }, pair: { type: 'array', items: { type: 'string' } } });
  expect(warnings).toEqual([
    'Tool t: `args.any` has no type AgentCore accepts (any value): it is sent as object.',
    "Tool t: `args.pair` is a tuple: AgentCore has no tuples, its first item's schema is sent for every item.",
  ]);
});

test('a tool without a description gets its name, with a warning', () => {
  const { definitions, warnings } = gatewayToolDefinitions([{ name: 'quiet', inputSchema: { type: 'object' }, approval: 'never', readOnly: true }]);
  expect(definitions[0].description).toBe('quiet');
  expect(warnings).toEqual(['Tool quiet has no description, which AgentCore Gateway requires: its name is sent instead.']);
});

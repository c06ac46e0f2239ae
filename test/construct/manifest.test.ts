/**
 * The tools manifest read at synth: the construct runs the bundle it built in a child node
 * process and learns the tools; wrong `tools` and `handler` are errors at construction, by exact
 * message. Bundled stacks (about a second each; the manifest is cached per bundle hash).
 */
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { ToolHandler, ToolHandlerProps } from '../../lib';
import { ENV } from './helpers';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');

function build(overrides: Partial<ToolHandlerProps> = {}, context: Record<string, unknown> = {}) {
  const app = new App({ context });
  const stack = new Stack(app, 'Manifest', { env: ENV });
  const tools = new ToolHandler(stack, 'Tools', { entry: ENTRY, tools: ['charge', 'refund', 'lookup'], ...overrides });
  return { app, stack, tools };
}

describe('toolManifest', () => {
  test('lists every tool of the module: name, description, input JSON Schema, approval, readOnly', () => {
    const { tools } = build();
    const manifest = tools.toolManifest!;
    expect(manifest.map(({ name, description, approval, readOnly }) => ({ name, description, approval, readOnly }))).toEqual([
      { name: 'charge', description: 'Charges a card.', approval: 'never', readOnly: false },
      { name: 'refund', description: 'Refunds an order.', approval: 'always', readOnly: false },
      { name: 'lookup', description: undefined, approval: 'never', readOnly: true },
      { name: 'internal', description: 'Not in any allowlist.', approval: 'never', readOnly: false },
    ]);
    expect(manifest[1].inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { orderId: { type: 'string', minLength: 1 } },
      required: ['orderId'],
    });
    expect(manifest[3].inputSchema).toEqual({ type: 'object' });
  });

  test('is undefined, with an info annotation, when bundling is skipped', () => {
    const { tools } = build({}, { 'aws:cdk:bundling-stacks': [] });
    expect(tools.toolManifest).toBeUndefined();
    // Read from the construct's metadata: synthesizing an unbundled stack stages the whole project.
    const infos = tools.node.metadata.filter((m) => m.type === 'aws:cdk:info').map((m) => m.data);
    expect(infos).toEqual([
      `The tools manifest was not read (bundling is skipped for this stack, aws:cdk:bundling-stacks): ` +
        `\`tools\` and \`handler\` were not checked against ${ENTRY}.`,
    ]);
  });

  test('with bundling skipped, wrong names are not checked (nothing to check them against)', () => {
    expect(() => build({ tools: ['ghost'] }, { 'aws:cdk:bundling-stacks': [] })).not.toThrow();
  });
});

describe('synth errors, at construction', () => {
  test('an allowlist name the module does not define', () => {
    expect(() => build({ tools: ['charge', 'ghost', 'phantom'] })).toThrow(
      `Manifest/Tools: \`tools\` names tools that ${ENTRY} does not define: ghost, phantom. It defines: charge, refund, lookup, internal.`,
    );
  });

  test('a missing handler export', () => {
    expect(() => build({ handler: 'nope' })).toThrow(
      `Manifest/Tools: \`handler\`: ${ENTRY} has no export named nope, got exports: charge, handler, internal, lookup, notAHandler, refund. ` +
        'It needs `export const nope = toolHandler([...])`, or the `handler` prop set to the name of the export that is one.',
    );
  });

  test('a module whose top-level code throws at synth: the error says module code runs at synth without the environment', () => {
    const entry = path.join(__dirname, '..', 'fixtures', 'throws-at-load-tools.ts');
    expect(() => build({ entry, tools: ['charge'], environment: { API_KEY: 'set-for-the-function' } })).toThrow(
      `Manifest/Tools: \`entry\`: loading ${entry} at synth to read its tools failed: `,
    );
    expect(() => build({ entry, tools: ['charge'] })).toThrow(
      /API_KEY is not set\. The module's top-level code runs at synth, in a plain node process without the function's environment variables or AWS credentials: read configuration inside a tool's `run` \(or lazily, on first use\), not at module load\./,
    );
  });

  test('a handler export that is not a toolHandler', () => {
    expect(() => build({ handler: 'notAHandler' })).toThrow(
      `Manifest/Tools: \`handler\`: the export notAHandler of ${ENTRY} is not a handler built by toolHandler, got: function. ` +
        "It needs `export const notAHandler = toolHandler([...])` (from 'cdk-tool-handler/lambda').",
    );
  });
});

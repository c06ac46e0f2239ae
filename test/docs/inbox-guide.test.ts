/**
 * docs/inbox.md's construct examples synthesize (test/docs/guide-examples.test.ts type-checks
 * them): each runs in a stack of its own, given what the rosetta fixture gives an example (`this`,
 * `tools`, `entry`, `path`), and the template it makes holds the inbox.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ts from 'typescript';
import { ToolHandler } from '../../lib';

const ROOT = path.join(__dirname, '..', '..');
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs', 'inbox.md'), 'utf8');
const EXAMPLES = [...GUIDE.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);

/** The example as a function of what the fixture gives it; its imports of the package come from lib/. */
function runnable(example: string): (this: Stack, tools: ToolHandler, entry: string, dirname: string) => void {
  const imported = [...example.matchAll(/^import \{([^}]*)\} from 'cdk-tool-handler';$/gm)].flatMap((m) => m[1].split(',').map((n) => n.trim()));
  const body = example.replace(/^import .*$/gm, '');
  const declaresTools = /const tools\b/.test(body);
  const source = [
    `const { ${imported.join(', ')} } = require(${JSON.stringify(path.join(ROOT, 'lib', 'index'))});`,
    `const path = require('node:path');`,
    `exports.example = function (${declaresTools ? '_tools' : 'tools'}: any, entry: string, __dirname: string) {`,
    body,
    `};`,
  ].join('\n');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports: { example?: (this: Stack, tools: ToolHandler, entry: string, dirname: string) => void } = {};
  new Function('require', 'exports', js)(require, exports);
  return exports.example!;
}

test('the guide has its examples', () => {
  expect(EXAMPLES.length).toBeGreaterThanOrEqual(3);
});

test.each(EXAMPLES.map((example, i) => [i + 1, example] as const))('example %d synthesizes an inbox', (_n, example) => {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Guide', { env: { account: '123456789012', region: 'us-east-1' } });
  const entry = path.join(ROOT, 'bin', 'tools.ts');
  const tools = new ToolHandler(stack, 'FixtureTools', { entry, allowedTools: ['add', 'refund'] });
  runnable(example).call(stack, tools, entry, path.join(ROOT, 'bin'));
  Template.fromStack(stack).resourceCountIs('AWS::ApiGatewayV2::Api', 1);
});

/**
 * docs/inbox.md's TypeScript examples compile against the package (type-checked with the
 * project's compiler settings) and synthesize: each runs in a stack of its own, with the handlers it
 * names (`tools`, `refunds`, `payouts`) made for it when it does not make them, and the template it
 * makes holds the inbox.
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
const HANDLER_NAMES = ['tools', 'refunds', 'payouts'];
const LIB = path.join(ROOT, 'lib', 'index');

/** What an example does not declare of the handlers it uses, given to it as parameters. */
function given(example: string): string[] {
  return HANDLER_NAMES.filter((name) => new RegExp(`\\b${name}\\b`).test(example) && !new RegExp(`const ${name}\\b`).test(example));
}

function source(example: string): string {
  const params = given(example).map((name) => `${name}: ToolHandler`);
  return [
    `import * as path from 'node:path';`,
    `import { Stack } from 'aws-cdk-lib';`,
    `import { ApprovalsInbox, InboxSignIn, ToolHandler } from ${JSON.stringify(LIB)};`,
    `export function example(this: Stack, __dirname: string${params.map((p) => `, ${p}`).join('')}): void {`,
    example,
    `  void [path, ApprovalsInbox, InboxSignIn];`,
    `}`,
  ].join('\n');
}

test('the guide has its examples', () => {
  expect(EXAMPLES.length).toBeGreaterThanOrEqual(3);
});

test('every example type-checks', () => {
  // Inside the repository, so that its node_modules resolve the examples' imports.
  const cache = path.join(ROOT, 'node_modules', '.cache');
  fs.mkdirSync(cache, { recursive: true });
  const dir = fs.mkdtempSync(path.join(cache, 'inbox-guide-'));
  const files = EXAMPLES.map((example, i) => {
    const file = path.join(dir, `example-${i + 1}.ts`);
    fs.writeFileSync(file, source(example));
    return file;
  });
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.dev.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const program = ts.createProgram(files, { ...config.options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.includes(path.resolve(d.file.fileName)))
    .map((d) => `${path.basename(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  fs.rmSync(dir, { recursive: true, force: true });
  expect(problems).toEqual([]);
}, 120_000);

test.each(EXAMPLES.map((example, i) => [i + 1, example] as const))('example %d synthesizes an inbox', (_n, example) => {
  const js = ts.transpileModule(source(example), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports: { example?: (...args: unknown[]) => void } = {};
  new Function('require', 'exports', js)(require, exports);
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Guide', { env: { account: '123456789012', region: 'us-east-1' } });
  const handlers = given(example).map((name) => new ToolHandler(stack, name, { entry: path.join(ROOT, 'bin', 'tools.ts'), tools: ['refund'], owner: name }));
  exports.example!.call(stack, path.join(ROOT, 'bin'), ...handlers);
  const template = Template.fromStack(stack);
  template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
});

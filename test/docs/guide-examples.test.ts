/**
 * Every TypeScript example of the README and the guides under docs/ type-checks against this
 * package's sources, so an example that no longer compiles fails here:
 * - a construct example (fenced `ts`) is compiled as jsii-rosetta compiles the README's, inside the
 *   stack of rosetta/default.ts-fixture (where `this`, `tools`, `entry`, `agentRole`, ... exist), its
 *   imports hoisted;
 * - a module (fenced `TypeScript`: a tools module, a test) is compiled as the file it is.
 * `cdk-tool-handler` and `cdk-tool-handler/lambda` resolve to lib/ and lambda/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');
const GUIDES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const FIXTURE = fs.readFileSync(path.join(ROOT, 'rosetta', 'default.ts-fixture'), 'utf8');

interface Example {
  readonly guide: string;
  readonly line: number;
  readonly kind: 'construct' | 'module';
  readonly source: string;
}

function examplesOf(guide: string): Example[] {
  const text = fs.readFileSync(path.join(ROOT, guide), 'utf8');
  const found: Example[] = [];
  for (const match of text.matchAll(/^( *)```(ts|TypeScript)\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1].length;
    const source = match[3]
      .split('\n')
      .map((line) => line.slice(indent))
      .join('\n');
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ guide, line, kind: match[2] === 'ts' ? 'construct' : 'module', source });
  }
  return found;
}

/** A construct example inside the fixture's stack, its imports at the top (as jsii-rosetta puts them). */
function inFixture(source: string): string {
  const lines = source.split('\n');
  const imports = lines.filter((line) => /^import\s/.test(line));
  const body = lines.filter((line) => !/^import\s/.test(line));
  return `${imports.join('\n')}\n${FIXTURE.replace(/^\s*\/\/\/ here$/m, () => body.join('\n'))}`;
}

const EXAMPLES = GUIDES.flatMap(examplesOf);
const OUT = path.join(ROOT, 'test', 'docs', '.examples');

function compile(examples: readonly Example[]): Map<Example, string[]> {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT, { recursive: true });
  const files = new Map<string, Example>();
  examples.forEach((example, i) => {
    const file = path.join(OUT, `example${i}.ts`);
    fs.writeFileSync(file, example.kind === 'construct' ? inFixture(example.source) : example.source);
    files.set(file, example);
  });
  const program = ts.createProgram([...files.keys()], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node', 'jest', 'aws-lambda'],
    typeRoots: [path.join(ROOT, 'node_modules', '@types')],
    paths: {
      'cdk-tool-handler': [path.join(ROOT, 'lib', 'index.ts')],
      'cdk-tool-handler/lambda': [path.join(ROOT, 'lambda', 'index.ts')],
      'cdk-tool-handler/durable': [path.join(ROOT, 'lambda', 'durable.ts')],
    },
  });
  const problems = new Map<Example, string[]>(examples.map((example) => [example, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const example = diagnostic.file ? files.get(diagnostic.file.fileName) : undefined;
    if (!example) continue;
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const text = diagnostic.file!.text.split('\n')[line];
    problems.get(example)!.push(`${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}\n    at: ${text.trim()}`);
  }
  return problems;
}

let problems: Map<Example, string[]>;
beforeAll(() => {
  problems = compile(EXAMPLES);
}, 120_000);
afterAll(() => fs.rmSync(OUT, { recursive: true, force: true }));

test('the guides have examples to check', () => {
  expect(EXAMPLES.filter((e) => e.kind === 'construct').length).toBeGreaterThan(5);
  expect(EXAMPLES.filter((e) => e.kind === 'module').length).toBeGreaterThan(3);
});

test.each(EXAMPLES.map((example) => [`${example.guide}:${example.line}`, example] as const))('%s compiles', (_where, example) => {
  expect(problems.get(example)).toEqual([]);
});

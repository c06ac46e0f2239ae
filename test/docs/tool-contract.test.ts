/**
 * Every runtime example of docs/tool-contract.md (a module, fenced `TypeScript`) compiles against the
 * sources and runs: its imports of `cdk-tool-handler/lambda` point at `lambda/index.ts`, its body runs
 * inside an async function and must print something. Construct examples (fenced `ts`) are compiled
 * in a stack by guide-examples.test.ts, as every guide's are.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeLogLines } from '../../lambda/log';
import { typeCheckProblems } from '../support/type-check';

const REPO = path.join(__dirname, '..', '..');
const DOC = 'docs/tool-contract.md';
const DIR = path.join(REPO, 'test', '.examples-tool-contract');

function blocksOf(markdown: string): string[] {
  return [...markdown.matchAll(/```TypeScript\n([\s\S]*?)```/g)].map((m) => m[1]);
}

function moduleOf(code: string): string {
  const lines = code.split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  const declared = lines.filter((line) => line.startsWith('declare '));
  const body = lines.filter((line) => !line.startsWith('import ') && !line.startsWith('declare '));
  const runtime = path.relative(DIR, path.join(REPO, 'lambda', 'index')).replace(/\\/g, '/');
  const construct = path.relative(DIR, path.join(REPO, 'lib', 'index')).replace(/\\/g, '/');
  return [
    ...imports.map((line) => line.replace("'cdk-tool-handler/lambda'", `'${runtime}'`).replace("'cdk-tool-handler'", `'${construct}'`)),
    ...declared,
    'export async function example(): Promise<void> {',
    ...body.map((line) => `  ${line}`),
    '}',
    '',
  ].join('\n');
}

fs.rmSync(DIR, { recursive: true, force: true });
fs.mkdirSync(DIR, { recursive: true });
const examples = blocksOf(fs.readFileSync(path.join(REPO, DOC), 'utf8')).map((code, index) => {
  const file = path.join(DIR, `example${index}.ts`);
  fs.writeFileSync(file, moduleOf(code));
  return { name: `${DOC} #${index + 1}`, file };
});

test('the guide has examples', () => {
  expect(examples.length).toBeGreaterThan(0);
});

test('every example type-checks against the sources', () => {
  expect(typeCheckProblems(examples.map((e) => e.file))).toEqual([]);
}, 60_000);

describe('every example runs', () => {
  let logs: unknown[][];
  beforeEach(() => {
    logs = [];
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args));
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    writeLogLines();
    jest.restoreAllMocks();
  });

  test.each(examples.map((e) => [e.name, e.file]))('%s', async (_name, file) => {
    const { example } = require(file) as { example: () => Promise<void> };
    await example();
    expect(logs.length).toBeGreaterThan(0);
  });
});

import * as fs from 'node:fs';
import * as path from 'node:path';
import { createTestTable, dynaliteEndpoint } from '../support/dynamo';
import { LOCAL_AWS_ENV } from '../support/local-aws';
import { typeCheckProblems } from '../support/type-check';

/**
 * Every `@example` in the runtime's public TSDoc compiles (type-checked against the sources) and
 * runs. Each example's imports of `cdk-tool-handler/lambda` point at `lambda/index.ts`; its body runs
 * inside an async function.
 */

const REPO = path.join(__dirname, '..', '..');
const DIR = path.join(REPO, 'test', '.examples');
const SOURCES = ['lambda/tool.ts', 'lambda/tool-handler.ts', 'lambda/executor.ts', 'lambda/stores/memory.ts', 'lambda/stores/dynamo.ts'];

interface Example {
  readonly name: string;
  readonly file: string;
}

function examplesOf(source: string): string[] {
  const text = fs.readFileSync(path.join(REPO, source), 'utf8');
  const found: string[] = [];
  for (const comment of text.match(/\/\*\*[\s\S]*?\*\//g) ?? []) {
    const at = comment.indexOf('@example');
    if (at < 0) continue;
    const lines = comment.slice(at + '@example'.length).split('\n').slice(1);
    const code = lines.map((line) => line.replace(/^\s*\* ?/, '')).filter((line) => !line.startsWith('/')).join('\n');
    found.push(code.trim());
  }
  return found;
}

/** A module: the example's imports, then its body in `export async function example()`. */
function moduleOf(code: string): string {
  const lines = code.split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  const body = lines.filter((line) => !line.startsWith('import ')).map((line) => line.replace(/^export /, ''));
  const runtime = path.relative(DIR, path.join(REPO, 'lambda', 'index')).replace(/\\/g, '/');
  return [
    ...imports.map((line) => line.replace("'cdk-tool-handler/lambda'", `'${runtime}'`)),
    'export async function example(): Promise<void> {',
    ...body.map((line) => `  ${line}`),
    '}',
    '',
  ].join('\n');
}

const examples: Example[] = SOURCES.flatMap((source) =>
  examplesOf(source).map((code, index) => ({ name: `${source} #${index + 1}`, code })),
).map(({ name, code }, index) => {
  fs.mkdirSync(DIR, { recursive: true });
  const file = path.join(DIR, `example${index}.ts`);
  fs.writeFileSync(file, moduleOf(code));
  return { name, file };
});

test('the public classes and functions each have an example', () => {
  expect(examples.map((e) => e.name.split(' #')[0])).toEqual(SOURCES);
});

test('every example type-checks against the sources', () => {
  expect(typeCheckProblems(examples.map((e) => e.file))).toEqual([]);
}, 60_000);

describe('every example runs', () => {
  const saved = { ...process.env };
  let logs: unknown[][];
  beforeAll(async () => {
    const { tableName } = await createTestTable();
    Object.assign(process.env, {
      APPROVALS_TABLE: tableName,
      AWS_ENDPOINT_URL_DYNAMODB: dynaliteEndpoint(),
      ...LOCAL_AWS_ENV,
    });
  });
  afterAll(() => {
    process.env = saved;
  });
  beforeEach(() => {
    logs = [];
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logs.push(args));
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());

  test.each(examples.map((e) => [e.name, e.file]))('%s', async (_name, file) => {
    const { example } = require(file) as { example: () => Promise<void> };
    await example();
    expect(logs.length).toBeGreaterThan(0);
  });
});

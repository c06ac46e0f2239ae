/**
 * What the guides and API.md both state holds one truth: the approvals table's key, TTL attribute,
 * indexes and stream, as the `approvalsTable` prop's TSDoc (lib/tool-handler-props.ts, which
 * jsii-docgen turns into API.md) and the guides' sections say them, against the names the construct
 * and the runtime share (lambda/construct-contract.ts). And the Python guide's app uses only props
 * and methods the construct has, in their Python (snake_case) names.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INDEXES, TABLE } from '../../lambda/construct-contract';

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const REFERENCE = read('docs/reference.md');
const CONSTRUCT = read('docs/construct.md');
const PYTHON = read('docs/python.md');
const API = read('API.md');

/** The text between two headings (or markers) of `doc`. */
function between(doc: string, start: string, end: string): string {
  const from = doc.indexOf(start);
  const to = doc.indexOf(end, from + start.length);
  if (from < 0 || to < 0) throw new Error(`no text between ${JSON.stringify(start)} and ${JSON.stringify(end)}`);
  return doc.slice(from, to);
}

/** The TSDoc of `approvalsTable` in lib/tool-handler-props.ts, as one line of text. */
function propDoc(): string {
  const source = read('lib/tool-handler-props.ts');
  const match = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*readonly approvalsTable\?/.exec(source);
  if (!match) throw new Error('no TSDoc above approvalsTable');
  return match[1].replace(/^\s*\*/gm, '').replace(/\s+/g, ' ');
}

/** API.md's part for the `approvalsTable` prop, as one line of text. */
function apiDoc(): string {
  return between(API, 'id="cdk-tool-handler.ToolHandlerProps.property.approvalsTable"', '\n---').replace(/\s+/g, ' ');
}

const flat = (text: string) => text.replace(/\s+/g, ' ');
const GUIDE_TABLE = flat(REFERENCE.slice(REFERENCE.indexOf('## The approvals table')));
const GUIDE_CREATES = flat(between(CONSTRUCT, '## What it creates', '## Validation'));

const sources: Array<[string, () => string]> = [
  ['the approvalsTable TSDoc', propDoc],
  ['API.md', apiDoc],
  ['docs/reference.md, "The approvals table"', () => GUIDE_TABLE],
  ['docs/construct.md, "What it creates"', () => GUIDE_CREATES],
];

describe.each(sources)('%s', (_name, text) => {
  test(`names the TTL attribute ${TABLE.ttlAttribute}, and no other`, () => {
    const named = [...text().matchAll(/TTL (?:on|attribute:?) `(\w+)`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named)).toEqual(new Set([TABLE.ttlAttribute]));
  });

  test('names the stream of new and old images', () => {
    expect(text()).toMatch(/stream of new and old\s+images/);
  });
});

describe.each(sources.slice(0, 3))('%s', (_name, text) => {
  test(`names the key \`${TABLE.partitionKey}\` (String, no sort key)`, () => {
    expect(text()).toMatch(new RegExp(`partition key \`${TABLE.partitionKey}\` \\((String|string)\\)|String partition key \`${TABLE.partitionKey}\``));
    expect(text()).toMatch(/no sort key/);
  });

  test.each(INDEXES.map((index) => [index.name, index] as const))('names the index %s with its keys and their types', (name, index) => {
    const t = text();
    const pattern = new RegExp(
      `\`${name}\`[^.;]*?(String \`${index.partitionKey.name}\`, Number \`${index.sortKey.name}\`|` +
        `partition key \`${index.partitionKey.name}\` \\(String\\), sort key \`${index.sortKey.name}\` \\(Number\\))`,
    );
    expect(t).toMatch(pattern);
  });
});

test('API.md is the TSDoc of approvalsTable (regenerated after the TSDoc changed)', () => {
  const doc = propDoc().trim();
  const firstSentence = doc.slice(0, doc.indexOf('.') + 1);
  expect(apiDoc()).toContain(firstSentence);
  for (const fact of ['`pk`', `TTL on \`${TABLE.ttlAttribute}\``, 'stream of new and old images', 'synth error']) expect(apiDoc()).toContain(fact);
});

describe("the Python guide's app", () => {
  const block = /<!-- python-app -->\n```python\n([\s\S]*?)```/.exec(PYTHON)?.[1];
  const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

  test('is there, after a `python-app` marker', () => {
    expect(block).toBeDefined();
  });

  test('uses only ToolHandler props, in snake_case', () => {
    const props = new Set([...read('lib/tool-handler-props.ts').matchAll(/^\s+readonly (\w+)\??:/gm)].map((m) => snake(m[1])));
    const call = /ToolHandler\(([\s\S]*?)\n\s*\)/.exec(block!)![1];
    const keywords = [...call.matchAll(/^\s*(\w+)=/gm)].map((m) => m[1]);
    expect(keywords.length).toBeGreaterThan(1);
    for (const keyword of keywords) expect({ keyword, known: props.has(keyword) }).toEqual({ keyword, known: true });
  });

  test('calls only methods the construct has, in snake_case', () => {
    const methods = new Set([...read('lib/tool-handler.ts').matchAll(/^\s+public (?:static )?(\w+)\(/gm)].map((m) => snake(m[1])));
    const called = [...block!.matchAll(/\btools\.(\w+)\(/g)].map((m) => m[1]);
    expect(called.length).toBeGreaterThan(0);
    for (const method of called) expect({ method, known: methods.has(method) }).toEqual({ method, known: true });
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  (python ? test : test.skip)('is valid Python (python3 compiles it)', () => {
    const result = spawnSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read(), "app.py")'], { input: block, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

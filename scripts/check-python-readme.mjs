#!/usr/bin/env node
// Checks the README of the generated Python binding (jsii-pacmak's, with the translations of the
// tablet that `npm run rosetta` wrote): every example of the construct is there in Python, each
// `python` block parses (python3's own parser, when python3 is on the PATH) and holds no TypeScript,
// and no block is left as untranslated `ts`. Examples of the runtime and of jest tests are
// `TypeScript` blocks in README.md and stay TypeScript (the runtime is TypeScript/JavaScript only).
// Usage: node scripts/check-python-readme.mjs <pacmak outdir>/python/README.md
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = process.argv[2];
if (!file) {
  process.stderr.write('Usage: node scripts/check-python-readme.mjs <pacmak outdir>/python/README.md\n');
  process.exit(2);
}

/** The fenced blocks of a markdown text: their info string's first word and their source. */
function blocks(markdown) {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ language: m[1].split(' ')[0], source: m[2] }));
}

const source = blocks(readFileSync(join(root, 'README.md'), 'utf8'));
const generated = blocks(readFileSync(file, 'utf8'));
const problems = [];

const translatable = source.filter((b) => b.language === 'ts' || b.language === 'typescript').length;
const written = source.filter((b) => b.language === 'python').length;
const python = generated.filter((b) => b.language === 'python');
if (python.length !== translatable + written) {
  problems.push(`${python.length} python blocks, expected ${translatable + written} (${translatable} translated, ${written} written in Python)`);
}
const left = generated.filter((b) => b.language === 'ts' || b.language === 'typescript').length;
if (left > 0) problems.push(`${left} blocks left as untranslated ts`);

const TYPESCRIPT = [
  [/^\s*import\s*(\{|\*\s+as)/m, 'an ES import'],
  [/^\s*(const|let|export|interface)\s/m, 'a TypeScript declaration'],
  [/=>/, 'an arrow function'],
  [/\bnew\s+[A-Z]/, 'new'],
  [/;\s*$/m, 'a line ending in ;'],
];
const hasPython = spawnSync('python3', ['--version']).status === 0;
python.forEach((block, i) => {
  for (const [pattern, what] of TYPESCRIPT) if (pattern.test(block.source)) problems.push(`python block ${i + 1} holds ${what}:\n${block.source}`);
  if (hasPython) {
    const parsed = spawnSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: block.source, encoding: 'utf8' });
    if (parsed.status !== 0) problems.push(`python block ${i + 1} does not parse: ${parsed.stderr.trim().split('\n').pop()}\n${block.source}`);
  }
});

if (problems.length > 0) {
  process.stderr.write(`The Python README (${file}) is not all Python:\n- ${problems.join('\n- ')}\n`);
  process.exit(1);
}
process.stdout.write(`Python README: ${python.length} python blocks, all parse${hasPython ? '' : ' (python3 not found: not parsed)'} and hold no TypeScript.\n`);

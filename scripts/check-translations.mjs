#!/usr/bin/env node
// Checks that every construct example jsii-rosetta compiled (the README's `ts` blocks and the
// construct's @example docs, in the tablet `npm run rosetta` wrote) has a translation into each
// language of `jsii.targets` (Python, Java, C#, Go): what Construct Hub shows in each language's page.
// And that the Go binding's README (jsii-pacmak's) holds Go where the README holds `ts`, with no
// block left untranslated. The Python README has its own, stricter check (check-python-readme.mjs).
// Usage: node scripts/check-translations.mjs <pacmak outdir>
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = process.argv[2];
if (!outdir) {
  process.stderr.write('Usage: node scripts/check-translations.mjs <pacmak outdir>\n');
  process.exit(2);
}

const LANGUAGES = { python: 'python', java: 'java', dotnet: 'csharp', go: 'go' };
const targets = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).jsii.targets);
const problems = [];
for (const target of targets) if (!(target in LANGUAGES)) problems.push(`jsii target ${target} has no language to check`);

const snippets = Object.values(JSON.parse(readFileSync(join(root, '.jsii.tabl.json'), 'utf8')).snippets);
if (snippets.length === 0) problems.push('the tablet holds no snippet: did `npm run rosetta` run?');
for (const [i, snippet] of snippets.entries()) {
  for (const target of targets) {
    const language = LANGUAGES[target];
    const source = snippet.translations[language]?.source;
    if (typeof source !== 'string' || source.trim() === '') problems.push(`snippet ${i + 1} has no ${language} translation:\n${snippet.translations.$.source}`);
  }
  if (snippet.didCompile === false) problems.push(`snippet ${i + 1} did not compile:\n${snippet.translations.$.source}`);
}

function blocks(markdown) {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ language: m[1].split(' ')[0], source: m[2] }));
}
const readme = blocks(readFileSync(join(root, 'README.md'), 'utf8'));
const translatable = readme.filter((b) => b.language === 'ts').length;
if (targets.includes('go')) {
  const go = blocks(readFileSync(join(outdir, 'go', 'cdktoolhandler', 'README.md'), 'utf8'));
  const goBlocks = go.filter((b) => b.language === 'go');
  if (goBlocks.length !== translatable) problems.push(`the Go README has ${goBlocks.length} go blocks, expected ${translatable}`);
  if (go.some((b) => b.language === 'ts')) problems.push('the Go README has untranslated ts blocks');
  for (const block of goBlocks) if (/;\s*$/m.test(block.source) || /\bnew\s+[A-Z]/.test(block.source)) problems.push(`a go block holds TypeScript:\n${block.source}`);
}

if (problems.length > 0) {
  process.stderr.write(`Translations:\n- ${problems.join('\n- ')}\n`);
  process.exit(1);
}
process.stdout.write(`Translations: ${snippets.length} examples in ${targets.map((t) => LANGUAGES[t]).join(', ')}; the Go README holds ${translatable} go blocks.\n`);

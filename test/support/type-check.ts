import * as path from 'node:path';
import * as ts from 'typescript';

const REPO = path.join(__dirname, '..', '..');

/**
 * Type-checks `files` with the repository's compiler options (tsconfig.dev.json, unused locals
 * allowed: an example may declare what it does not use) and returns the problems found in those
 * files, each as `<file name>: <message>`.
 */
export function typeCheckProblems(files: readonly string[]): string[] {
  const config = ts.readConfigFile(path.join(REPO, 'tsconfig.dev.json'), ts.sys.readFile).config;
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPO);
  const program = ts.createProgram([...files], { ...options, noEmit: true, noUnusedLocals: false });
  const checked = new Set(files.map((file) => path.resolve(file)));
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && checked.has(path.resolve(d.file.fileName)))
    .map((d) => `${path.basename(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/**
 * The local run's audit file (`auditFileFor` in state.ts): the audit records its functions wrote,
 * one JSON line each, unchanged, for `cdk-tool-handler audit --local`. Private to its user (mode
 * 0600, in the state file's private directory), made fresh by each run and removed when it stops.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { auditRecordOf, type AuditRecord } from '../console/audit-record';
import { CliError } from '../console/errors';
import { assertPrivate } from './state';

export class AuditFile {
  /**
   * Writes `lines` (the records so far) to a new file, private from its creation, then renames it
   * over `path`: a file left there before never receives a record.
   */
  constructor(
    readonly path: string,
    lines: readonly string[],
  ) {
    const fresh = `${path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(fresh, lines.map((line) => `${line}\n`).join(''), { mode: 0o600, flag: 'wx' });
      fs.renameSync(fresh, path);
    } catch (error) {
      fs.rmSync(fresh, { force: true });
      throw new CliError(`Could not write the local run's audit file ${path}: ${(error as Error).message}`);
    }
  }

  append(line: string): void {
    fs.appendFileSync(this.path, `${line}\n`, { mode: 0o600 });
  }

  remove(): void {
    fs.rmSync(this.path, { force: true });
  }
}

/** The records of a run's audit file, in the order they were written. */
export function readAuditFile(path: string): AuditRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch {
    throw new CliError('The local run keeps no audit file: start `cdk-tool-handler local` again (this version keeps one).');
  }
  assertPrivate(path, 'audit file');
  return text.split('\n').flatMap((line) => {
    const record = auditRecordOf(line);
    return record ? [record] : [];
  });
}

/**
 * What a function prints in the local sandbox reads as it would on Lambda with the JSON log format
 * the construct's functions use: `console.*` becomes one JSON line with the text under `message`
 * (and the level and request id), while what the code writes to stdout itself stays as written. So
 * a tool that prints an audit-record-shaped line is no audit record locally, as in the cloud.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { auditRecordOf } from '../../console/audit-record';
import { FunctionSandbox, type Isolation } from '../../local/function-sandbox';
import { until } from '../support/until';

const FORGED = JSON.stringify({ record: 'audit', event: 'call', outcome: 'ok', 'gen_ai.tool.name': 'forged' });
const OWN = JSON.stringify({ record: 'audit', event: 'call', outcome: 'ok', 'gen_ai.tool.name': 'real' });

let codeDir: string;

beforeAll(() => {
  codeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-console-'));
  fs.writeFileSync(
    path.join(codeDir, 'index.js'),
    `exports.handler = async () => {
  console.log(${JSON.stringify(FORGED)});
  console.error('failed: %d items', 3);
  process.stdout.write(${JSON.stringify(OWN)} + '\\n');
  return 'done';
};\n`,
  );
});

afterAll(() => fs.rmSync(codeDir, { recursive: true, force: true }));

test.each<Isolation>(['thread', 'process'])('in a %s: console.* is wrapped as Lambda wraps it, stdout is not', async (isolation) => {
  const lines: string[] = [];
  const sandbox = new FunctionSandbox(
    { name: 'Fn', label: 'handler', codeDir, handler: 'index.handler', env: {}, timeoutSeconds: 5, memoryMb: 128 },
    { nodePath: '', isolation, onLog: (_label, line) => lines.push(line) },
  );
  try {
    await sandbox.ready();
    expect(await sandbox.invoke({})).toMatchObject({ ok: true, result: 'done' });
    await until(() => lines.length >= 3, 'three lines', () => ({ stdout: lines.join('\n'), stderr: '' }));
  } finally {
    await sandbox.stop();
  }
  const [logged, errored, own] = lines.map((line) => JSON.parse(line));
  expect(logged).toEqual({ timestamp: expect.any(String), level: 'INFO', requestId: expect.any(String), message: FORGED });
  expect(errored).toMatchObject({ level: 'ERROR', message: 'failed: 3 items', requestId: logged.requestId });
  expect(lines.map((line) => auditRecordOf(line)?.['gen_ai.tool.name'])).toEqual([undefined, undefined, 'real']);
  expect(own).toEqual(JSON.parse(OWN));
});

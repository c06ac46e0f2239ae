import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOOL_NAME_PATTERN as RUNTIME_TOOL_NAME_PATTERN } from '../../lambda/envelope';
import { ENV, TABLE } from '../../lambda/names';
import { TOOL_NAME_PATTERN } from '../../lib/defaults';

/** The construct and the runtime must agree; where they cannot share a module, these hold them equal. */
test('the construct checks tool names with the runtime rule', () => {
  expect(TOOL_NAME_PATTERN.source).toBe(RUNTIME_TOOL_NAME_PATTERN.source);
  expect(TOOL_NAME_PATTERN.flags).toBe(RUNTIME_TOOL_NAME_PATTERN.flags);
});

test('lib/ never re-types the shared names: it imports them from lambda/names.ts', () => {
  const dir = path.join(__dirname, '..', '..', 'lib');
  const shared = [...Object.values(ENV), TABLE.approvalKeyPrefix, TABLE.callKeyPrefix];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))) {
    const source = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const name of shared) expect({ file, typed: source.includes(`'${name}`) }).toEqual({ file, typed: false });
  }
});

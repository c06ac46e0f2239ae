import * as fs from 'node:fs';
import * as path from 'node:path';
import { ENV, TABLE } from '../../lambda/construct-contract';

/** The construct and the runtime must agree: lib/ imports the shared names, never copies them. */
test('lib/ never re-types the shared names: it imports them from lambda/construct-contract.ts', () => {
  const dir = path.join(__dirname, '..', '..', 'lib');
  const shared = [...Object.values(ENV), TABLE.approvalKeyPrefix, TABLE.callKeyPrefix];
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  for (const file of files) {
    const source = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const name of shared) expect({ file, typed: source.includes(`'${name}`) }).toEqual({ file, typed: false });
  }
});

/** Asks a yes/no question on the terminal (`node:readline`); anything but y/yes is no. */
import { createInterface } from 'node:readline';
import type { CliIo } from '../console/io';

export async function confirm(question: string, input: CliIo['stdin'], output: CliIo['stdout']): Promise<boolean> {
  const rl = createInterface({ input, terminal: false });
  output.write(`${question} [y/N] `);
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(undefined)); // end of input: no answer is no
    });
    if (answer === undefined) output.write('\n');
    return /^\s*y(es)?\s*$/i.test(answer ?? '');
  } finally {
    rl.close();
  }
}

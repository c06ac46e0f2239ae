/**
 * `local` without `--assembly`: it synthesizes the app itself (the project's aws-cdk, `cdk synth`
 * into a temporary directory) from the cdk.json of the working directory, here the sample app.
 */
import { local, REPO } from './sample-assembly';

test('synthesizes the sample app from cdk.json, then runs a call', async () => {
  const cwd = process.cwd();
  process.chdir(REPO);
  try {
    const result = await local(['local', '--once', JSON.stringify({ tool: 'add', args: { a: 4, b: 5 } })]);
    expect(result.stderr).toMatch(/^synthesizing: cdk synth \.\.\.$/m);
    expect(result.stderr).toMatch(/^synthesized in \d+\.\d s$/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('← ok add result 9   [bus: Tool Call Succeeded]');
  } finally {
    process.chdir(cwd);
  }
}, 120_000);

test('a failing synth is an error that shows its output', async () => {
  const failing = await local(['local', '--once', '--app', `${process.execPath} -e "console.error('no app here'); process.exit(3)"`]);
  expect(failing.code).toBe(1);
  expect(failing.stderr).toContain('failed (exit 1)');
  expect(failing.stderr).toContain('no app here');
}, 60_000);

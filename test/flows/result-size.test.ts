/**
 * A result too big for a flow's completion (256 KB), through the real handler bundles of a
 * synthesized stack: the handler with `resultOffload` (its bundle carries the offload code) writes it
 * to the local S3 and completes the flow with `result_ref`; the one without (its bundle leaves the
 * offload code out) fails the flow at once with ToolHandler.ToolFailed saying so. Either way the
 * record is done: nothing truncated, no flow left waiting.
 */
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { ToolHandler } from '../../lib';
import { flowEngines, type EngineCompletion, type FlowEngines } from '../../local/flow-engines';
import { LocalRun } from '../../local/runtime';
import { removeMade, synthesizeApp } from '../local/sample-assembly';
import { sqsEvent, sqsRecord } from '../support/events';

/** JSON of the `large` tool's result is the size plus 11 bytes (`{"data":"..."}`): exactly the default threshold. */
const SIZE = 256 * 1024 - 11;
let engines: FlowEngines;
let assembly: string;
const runs: LocalRun[] = [];

beforeAll(async () => {
  assembly = synthesizeApp((app) => {
    const stack = new Stack(app, 'Sizes');
    const entry = path.join(__dirname, '..', 'fixtures', 'contract-tools.ts');
    new ToolHandler(stack, 'Offloading', { entry, tools: ['large'], owner: 'offloading', resultOffload: {} });
    new ToolHandler(stack, 'Plain', { entry, tools: ['large'], owner: 'plain' });
  });
  engines = flowEngines();
}, 180_000);
afterAll(async () => {
  for (const run of runs) await run.stop();
  removeMade();
});

async function start(handler: string): Promise<LocalRun> {
  const run = await LocalRun.start({ assembly, handler, print: () => undefined, expireEverySeconds: 60, flowEngines: engines });
  runs.push(run);
  return run;
}

/**
 * Sends a call of the `large` tool, from a flow waiting with `token`, as an SQS record to `handler`'s
 * local run: the record must be done (not failed back to the queue); resolves with the run and the
 * flow's completion.
 */
async function callFromFlow(handler: string, token: string): Promise<{ run: LocalRun; completion: EngineCompletion }> {
  const run = await start(handler);
  const completed = engines.waitForTask(token);
  const body = { tool: 'large', args: { size: SIZE }, run_id: 'r-big', call_id: 'c-big', reply_to: { kind: 'sfn', task_token: token } };
  const outcome = await run.invokeHandler(sqsEvent(sqsRecord('m-big', body, { arn: 'arn:aws:sqs:us-east-1:000000000000:local-tool-queue' })), undefined);
  expect(outcome).toMatchObject({ ok: true, result: { batchItemFailures: [] } });
  return { run, completion: await completed };
}

test('with resultOffload: offloaded, the flow completes with result_ref and no result, once', async () => {
  const token = 'size-token-offloaded';
  const { run, completion } = await callFromFlow('Offloading', token);
  expect(completion).toMatchObject({ ok: true });
  const reply = JSON.parse(completion.output!);
  expect(reply).toMatchObject({ status: 'ok', tool: 'large', result_ref: { bytes: SIZE + 11, uri: expect.stringMatching(/^s3:\/\/.+\/offloading\//) } });
  expect(reply).not.toHaveProperty('result');
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  expect(JSON.stringify(run.lines)).not.toContain(token);
}, 60_000);

test('without resultOffload: the flow fails at once with ToolHandler.ToolFailed saying so; the record is done', async () => {
  const token = 'size-token-plain';
  const { run, completion } = await callFromFlow('Plain', token);
  expect(completion).toMatchObject({ ok: false, error: 'ToolHandler.ToolFailed' });
  expect(completion.cause).toMatch(/^Tool large returned a result of \d+ bytes of JSON, over the \d+ bytes this call's reply can carry: .*`resultOffload`/);
  expect(engines.received.filter((c) => c.id === token)).toHaveLength(1);
  expect(JSON.stringify(run.lines)).not.toContain(token);
}, 60_000);

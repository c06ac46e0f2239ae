/**
 * A call whose tool keeps failing, with a flow waiting for it, through the real handler bundle of a
 * synthesized stack (the construct sets TOOL_HANDLER_MAX_RECEIVE_COUNT from the queue's redrive
 * policy): while SQS will deliver the message again, nothing completes the flow; on the receive
 * after which SQS moves it to the dead-letter queue, the flow fails with ToolHandler.ToolFailed,
 * instead of waiting for a call that will never run.
 */
import * as path from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { ToolHandler } from '../../lib';
import { flowEngines, type FlowEngines } from '../../local/flow-engines';
import { LocalRun } from '../../local/runtime';
import { removeMade, synthesizeApp } from '../local/sample-assembly';
import { sqsEvent, sqsRecord } from '../support/events';

const MAX_RECEIVES = 3;
let engines: FlowEngines;
let run: LocalRun;

beforeAll(async () => {
  const assembly = synthesizeApp((app) => {
    new ToolHandler(new Stack(app, 'Failing'), 'Tools', {
      entry: path.join(__dirname, '..', 'fixtures', 'audit-tools.ts'),
      tools: ['add', 'refund', 'boom'],
      maxReceiveCount: MAX_RECEIVES,
    });
  });
  engines = flowEngines();
  run = await LocalRun.start({ assembly, print: () => undefined, expireEverySeconds: 60, flowEngines: engines });
}, 180_000);
afterAll(async () => {
  await run?.stop();
  removeMade();
});

/** The record's `count`-th receive (`ApproximateReceiveCount`), from the local tool queue. */
function receive(count: number, body: unknown) {
  const record = sqsRecord('m-boom', body, { arn: 'arn:aws:sqs:us-east-1:000000000000:local-tool-queue' });
  return sqsEvent({ ...record, receiptHandle: `r-${count}`, attributes: { ...record.attributes, ApproximateReceiveCount: String(count) } });
}

test('a retryable failure fails the flow on the last receive only', async () => {
  const token = 'dead-letter-token-1';
  const body = { tool: 'boom', args: {}, run_id: 'r-boom', call_id: 'c-boom', reply_to: { kind: 'sfn', task_token: token } };
  const completed = engines.waitForTask(token);
  for (let count = 1; count <= MAX_RECEIVES; count++) {
    const outcome = await run.invokeHandler(receive(count, body), undefined);
    expect(outcome).toMatchObject({ ok: true, result: { batchItemFailures: [{ itemIdentifier: 'm-boom' }] } });
    if (count < MAX_RECEIVES) expect(engines.received).toHaveLength(0);
  }
  expect(await completed).toMatchObject({ ok: false, error: 'ToolHandler.ToolFailed' });
  expect(engines.received).toHaveLength(1);
  expect(JSON.stringify(run.lines)).not.toContain(token);
}, 60_000);

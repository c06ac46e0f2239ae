/**
 * docs/flows.md's examples compile against the sources (each block marked `<!-- file: NAME -->`,
 * its `cdk-tool-handler` imports pointed at lib/, lambda/ and lambda/durable), and its stack
 * synthesizes into what the guide says: a task that waits for its token and catches a denial and
 * an expiry, and the grant to answer it. The errors it lists are the ones the code says.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { App, Stack, StackProps } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { unbundledApp } from '../construct/helpers';
import { typeCheckProblems } from '../support/type-check';

const REPO = path.join(__dirname, '..', '..');
const DIR = path.join(REPO, 'test', '.examples', 'flows-guide');
const GUIDE = fs.readFileSync(path.join(REPO, 'docs', 'flows.md'), 'utf8');

function blocks(): Array<{ name: string; code: string }> {
  return [...GUIDE.matchAll(/<!-- file: ([\w.-]+) -->\n```TypeScript\n([\s\S]*?)```/g)].map((m) => ({ name: m[1], code: m[2] }));
}

function pointed(code: string): string {
  const to = (target: string) => path.relative(DIR, path.join(REPO, target)).replace(/\\/g, '/');
  return code
    .replace(/'cdk-tool-handler\/durable'/g, `'${to('lambda/durable')}'`)
    .replace(/'cdk-tool-handler\/lambda'/g, `'${to('lambda/index')}'`)
    .replace(/'cdk-tool-handler'/g, `'${to('lib/index')}'`);
}

const files = blocks().map(({ name, code }) => {
  fs.mkdirSync(DIR, { recursive: true });
  const file = path.join(DIR, name);
  fs.writeFileSync(file, pointed(code));
  return file;
});
// The stack's tools module, beside it as the guide assumes: the sample's.
fs.writeFileSync(path.join(DIR, 'tools.ts'), `export * from '${path.relative(DIR, path.join(REPO, 'bin', 'tools')).replace(/\\/g, '/')}';\n`);

test('the guide has its four examples', () => {
  expect(files.map((f) => path.basename(f))).toEqual(['refund-flow-stack.ts', 'refund-jsonata-stack.ts', 'refund-durable.ts', 'durable-grants.ts']);
});

test('the JSONata stack synthesizes a JSONata task whose message carries $states.context.Task.Token', () => {
  const { RefundJsonataStack } = require(path.join(DIR, 'refund-jsonata-stack.ts')) as { RefundJsonataStack: new (scope: App, id: string, props: StackProps) => Stack };
  const template = Template.fromStack(new RefundJsonataStack(unbundledApp(), 'GuideJsonata', { env: { account: '123456789012', region: 'us-east-1' } }));
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as any[];
  const text = (machine.Properties.DefinitionString['Fn::Join'][1] as unknown[]).map((p: any) => (typeof p === 'string' ? p : '"REF"')).join('');
  expect(text).toContain('"QueryLanguage":"JSONata"');
  expect(text).toContain('"task_token":"{% $states.context.Task.Token %}"');
  expect(text).toContain('"args":{"orderId":"{% $states.input.orderId %}"}');
});

test('every example type-checks against the sources', () => {
  expect(typeCheckProblems(files)).toEqual([]);
}, 90_000);

test('the stack synthesizes a task that waits for its token, catches a denial and an expiry, and may be answered by the handler', () => {
  const { RefundFlowStack } = require(path.join(DIR, 'refund-flow-stack.ts')) as { RefundFlowStack: new (scope: App, id: string, props: StackProps) => Stack };
  const stack = new RefundFlowStack(unbundledApp(), 'Guide', { env: { account: '123456789012', region: 'us-east-1' } });
  const template = Template.fromStack(stack);
  const [machine] = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as any[];
  const definition = JSON.parse(
    (machine.Properties.DefinitionString['Fn::Join'][1] as unknown[]).map((p: any) => (typeof p === 'string' ? p : p.Ref === 'AWS::Partition' ? 'aws' : 'REF')).join(''),
  );
  expect(definition.States.Refund).toMatchObject({
    Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken',
    TimeoutSeconds: 4 * 3600 + 3600,
    Parameters: { MessageBody: { tool: 'refund', reply_to: { kind: 'sfn', 'task_token.$': '$$.Task.Token' } } },
    Catch: [{ ErrorEquals: ['ToolHandler.ApprovalDenied', 'ToolHandler.ApprovalExpired'], Next: 'TellTheCustomer' }],
  });
  const grants = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p: any) => p.Properties.PolicyDocument.Statement);
  expect(grants.filter((s: any) => JSON.stringify(s.Action ?? null).includes('states:SendTaskSuccess'))).toHaveLength(2);
});

test.each([
  ['lib/hosts/flows.ts', 'Express workflows cannot wait for a task token'],
  ['lib/hosts/flows.ts', '`args` must be an object, `sfn.TaskInput.fromObject({...})` or `sfn.TaskInput.fromJsonPathAt(path)`'],
  ['lib/hosts/flows.ts', '`resultPath` is a JSONPath field, and `queryLanguage` is JSONATA'],
  ['local/flow-run.ts', 'the state machine uses JSONata, which the local interpreter (aws-local-stepfunctions) does not evaluate'],
  ['lambda/flows/reply-to.ts', '`reply_to.kind` must be "sfn" (with `task_token`) or "durable" (with `callback_id`)'],
  ['lambda/results/dispatch.ts', 'the call names a reply_to, but this handler keeps no flows'],
  ['local/flow-run.ts', 'the stack has no such state machine; its state machines:'],
])('the guide\'s error from %s is the one the code says', (file, text) => {
  expect(fs.readFileSync(path.join(REPO, file), 'utf8')).toContain(text);
  expect(GUIDE).toContain(text);
});

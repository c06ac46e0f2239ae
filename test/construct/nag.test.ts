import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, CfnResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SampleStack } from '../../bin/sample-stack';
import { ToolHandler } from '../../lib';
import { ENV, props } from './helpers';

// aws-cdk-lib's own check of templates against CloudFormation's rules, which jest.config.js turns off
// for the other test files: here every template is held to it as well as to cdk-nag.
process.env.CDK_VALIDATION = 'true';

/**
 * cdk-nag 3's AWS Solutions checks: the sample stack passes, with every acknowledgement in code with
 * a reason; so does a stack that turns on every option with findings of its own (key, tracing, FIFO,
 * rules, reply bus). Each app is synthesized once, without bundling.
 */
function nagApp(): App {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'nag-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return app;
}

function acknowledgements(app: App): Array<{ path: string; id: string; reason: string }> {
  return app.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          // As cdk-nag reads them: aws-cdk-lib files unprefixed ids under `Annotation::`.
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

test('the sample stack passes, and says why for each acknowledgement', () => {
  const app = nagApp();
  new SampleStack(app, 'Sample', { env: ENV });
  const assembly = app.synth();
  const report = JSON.parse(fs.readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'));
  expect(report.pluginReports ?? []).toEqual([]);
  const acks = acknowledgements(app);
  expect(acks.map(({ path: p, id }) => `${p} ${id}`).sort()).toEqual([
    'Sample/Tools/Approvals/Api AwsSolutions-L1',
    'Sample/Tools/Approvals/Engine AwsSolutions-L1',
    'Sample/Tools/Approvals/Expirer AwsSolutions-L1',
    'Sample/Tools/ApprovalsTableToolHandlerResume/DeadLetterQueue AwsSolutions-SQS3',
    'Sample/Tools/EventDeadLetterQueue AwsSolutions-SQS3',
    'Sample/Tools/Function AwsSolutions-L1',
  ]);
  for (const ack of acks) expect(ack.reason.length).toBeGreaterThan(40);
});

test('every option on: the construct acknowledges only what follows from it', () => {
  const app = nagApp();
  const stack = new Stack(app, 'Full', { env: ENV });
  const tools = new ToolHandler(stack, 'Tools', props({
    runtime: lambda.Runtime.NODEJS_24_X,
    tracing: lambda.Tracing.ACTIVE,
    encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }),
    fifo: true,
    replyBus: new events.EventBus(stack, 'Replies'),
    eventSources: [{ eventPattern: { source: ['agent'] } }],
    timeout: Duration.seconds(20),
  }));
  tools.addEventSource('More', { eventBus: new events.EventBus(stack, 'Calls'), eventPattern: { source: ['more'] } });
  const approver = new iam.Role(stack, 'Approver', { assumedBy: new iam.AccountRootPrincipal() });
  tools.grantReadApprovals(approver);
  expect(() => app.synth()).not.toThrow();
  expect(acknowledgements(app).map(({ path: p, id }) => `${p} ${id}`).sort()).toEqual([
    'Full/Tools/Approvals/ApiRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    'Full/Tools/Approvals/ApiRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
    'Full/Tools/Approvals/EngineRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    'Full/Tools/Approvals/EngineRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
    'Full/Tools/Approvals/ExpirerRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    'Full/Tools/Approvals/ExpirerRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
    'Full/Tools/ApprovalsTableToolHandlerResume/DeadLetterQueue AwsSolutions-SQS3',
    'Full/Tools/ApprovalsTableToolHandlerResume/Role/DefaultPolicy AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    'Full/Tools/ApprovalsTableToolHandlerResume/Role/DefaultPolicy AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
    'Full/Tools/EventDeadLetterQueue AwsSolutions-SQS3',
    'Full/Tools/ServiceRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
    'Full/Tools/ServiceRole/DefaultPolicy AwsSolutions-IAM5[Action::kms:ReEncrypt*]',
    'Full/Tools/ServiceRole/DefaultPolicy AwsSolutions-IAM5[Resource::*]',
  ]);
});

test('two handlers sharing a table, a reply bus and a topic: one resume path, and nothing new to acknowledge', () => {
  const app = nagApp();
  const stack = new Stack(app, 'Shared', { env: ENV });
  const replyBus = new events.EventBus(stack, 'Replies');
  const topic = new sns.Topic(stack, 'Approvers', { enforceSSL: true });
  const common = { runtime: lambda.Runtime.NODEJS_24_X, replyBus, approvalNotifications: topic };
  const one = new ToolHandler(stack, 'One', props(common));
  const two = new ToolHandler(stack, 'Two', props({ ...common, approvalsTable: one.approvalsTable, fifo: true }));
  // A third handler of the same table, whose resume path is made elsewhere (here: the same bus, passed on).
  new ToolHandler(stack, 'Three', props({ ...common, owner: 'three', approvalsTable: one.approvalsTable, approvalsResumeBus: two.approvalsResumeBus }));
  const assembly = app.synth();
  const report = JSON.parse(fs.readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'));
  expect(report.pluginReports ?? []).toEqual([]);
  expect(acknowledgements(app).map(({ path: p, id }) => `${p} ${id}`).sort()).toEqual([
    'Shared/One/ApprovalsTableToolHandlerResume/DeadLetterQueue AwsSolutions-SQS3',
    'Shared/One/EventDeadLetterQueue AwsSolutions-SQS3',
    'Shared/Three/EventDeadLetterQueue AwsSolutions-SQS3',
    'Shared/Two/EventDeadLetterQueue AwsSolutions-SQS3',
  ]);
});

test('the checks really run: the default runtime without its acknowledgement fails', () => {
  const app = nagApp();
  const stack = new Stack(app, 'Bare', { env: ENV });
  new ToolHandler(stack, 'Tools', props());
  expect(() => app.synth()).toThrow(/AwsSolutions-L1/);
});

test('operations: the alarms with actions and the dashboard add nothing to acknowledge', () => {
  const app = nagApp();
  const stack = new Stack(app, 'Ops', { env: ENV });
  const oncall = new sns.Topic(stack, 'Oncall', { enforceSSL: true });
  const tools = new ToolHandler(stack, 'Tools', props({
    runtime: lambda.Runtime.NODEJS_24_X,
    dashboard: true,
    alarmActions: [new actions.SnsAction(oncall)],
  }));
  const assembly = app.synth();
  const report = JSON.parse(fs.readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'));
  expect(report.pluginReports ?? []).toEqual([]);
  expect(tools.alarms.length).toBeGreaterThan(0);
  expect(acknowledgements(app).map(({ path: p, id }) => `${p} ${id}`).sort()).toEqual([
    'Ops/Tools/ApprovalsTableToolHandlerResume/DeadLetterQueue AwsSolutions-SQS3',
    'Ops/Tools/EventDeadLetterQueue AwsSolutions-SQS3',
  ]);
});

test("CloudFormation's rules really run here: a property the resource type does not have is reported", () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfn-rules-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Wrong', { env: ENV });
  new CfnResource(stack, 'Queue', { type: 'AWS::SQS::Queue', properties: { NotAQueueProperty: 1 } });
  const assembly = app.synth();
  const report = JSON.parse(fs.readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'));
  expect(JSON.stringify(report.pluginReports)).toContain('NotAQueueProperty');
});

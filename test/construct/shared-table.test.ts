import { App, CfnElement, CfnOutput, Fn, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct, IConstruct } from 'constructs';
import { ENV, OWNER_PATTERN, TABLE } from '../../lambda/construct-contract';
import { addApprovalIndexes } from '../../lib/approvals/approvals-table';
import { ToolHandler, ToolHandlerProps } from '../../lib';
import { ENV as STACK_ENV, props, unbundledApp } from './helpers';

/**
 * Owners with several handlers in one app: each is its own owner (key space, IAM, resume rule), a
 * table has one resume path (one stream reader) however many handlers share it, a reply bus gets
 * one guard statement however many handlers publish there, and notifications name the approvals
 * API output when a stack has several. Every stack is built without bundling.
 */

/** The logical id of the L1 behind `c` (or `c` itself). */
function idOf(c: IConstruct): string {
  return Stack.of(c).getLogicalId((c.node.defaultChild ?? c) as CfnElement);
}

function resourcesOf(template: Template, type: string): Array<{ id: string; resource: any }> {
  return Object.entries(template.findResources(type)).map(([id, resource]) => ({ id, resource }));
}

function tagsOf(resource: any): Record<string, string> {
  return Object.fromEntries((resource.Properties.Tags ?? []).map((tag: any) => [tag.Key, tag.Value]));
}

/** The four functions of a handler: itself and its approvals engine, API and expirer. */
function functionsOf(tools: ToolHandler): IConstruct[] {
  const approvals = tools.node.findChild('Approvals');
  return [tools.lambdaFunction, ...['Engine', 'Api', 'Expirer'].map((id) => approvals.node.findChild(id))];
}

/** Two handlers on the table the first one created, both publishing to one reply bus, both notifying. */
function createdTableStack(app: App, id = 'Created'): { stack: Stack; one: ToolHandler; two: ToolHandler; bus: events.EventBus } {
  const stack = new Stack(app, id, { env: STACK_ENV });
  const bus = new events.EventBus(stack, 'Replies');
  const topic = new sns.Topic(stack, 'Approvers');
  const shared: Partial<ToolHandlerProps> = { replyBus: bus, approvalNotifications: topic };
  const one = new ToolHandler(stack, 'One', props(shared));
  const two = new ToolHandler(stack, 'Two', props({ ...shared, approvalsTable: one.approvalsTable, fifo: true }));
  return { stack, one, two, bus };
}

/** A table of the user's, with everything the construct asks for. */
function userTable(scope: Construct, id: string): dynamodb.Table {
  const table = new dynamodb.Table(scope, id, {
    partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    timeToLiveAttribute: TABLE.ttlAttribute,
  });
  addApprovalIndexes(table);
  return table;
}

const app = unbundledApp();
const created = createdTableStack(app);

const userStack = new Stack(app, 'UserTable', { env: STACK_ENV });
const approvalsTable = userTable(userStack, 'Approvals');
const userOne = new ToolHandler(userStack, 'One', props({ approvalsTable }));
const userTwo = new ToolHandler(userStack, 'Two', props({ approvalsTable }));

const twoTablesStack = new Stack(app, 'TwoTables', { env: STACK_ENV });
const ownOne = new ToolHandler(twoTablesStack, 'One', props());
const ownTwo = new ToolHandler(twoTablesStack, 'Two', props());

// Handlers of two stacks on one table: the path is made beside the table, in its stack.
const tableStack = new Stack(app, 'TableStack', { env: STACK_ENV });
const crossOne = new ToolHandler(tableStack, 'One', props());
const otherStack = new Stack(app, 'OtherStack', { env: STACK_ENV });
const crossTwo = new ToolHandler(otherStack, 'Two', props({ approvalsTable: crossOne.approvalsTable }));

// A resume path made elsewhere (another app's `approvalsResumeBus`): only the rule is made here.
const RESUME_BUS_ARN = 'arn:aws:events:us-east-1:123456789012:event-bus/approvals-resume';
const elsewhereStack = new Stack(app, 'Elsewhere', { env: STACK_ENV });
const resumeBus = events.EventBus.fromEventBusArn(elsewhereStack, 'ResumeBus', RESUME_BUS_ARN);
const elsewhere = new ToolHandler(elsewhereStack, 'Tools', props({
  owner: 'orders',
  approvalsResumeBus: resumeBus,
  approvalsTable: dynamodb.Table.fromTableAttributes(elsewhereStack, 'Approvals', {
    tableName: 'approvals',
    tableStreamArn: 'arn:aws:dynamodb:us-east-1:123456789012:table/approvals/stream/2030-01-01T00:00:00.000',
  }),
}));
const createdWithBusStack = new Stack(app, 'CreatedWithBus', { env: STACK_ENV });
const createdWithBus = new ToolHandler(createdWithBusStack, 'Tools', props({
  approvalsResumeBus: events.EventBus.fromEventBusArn(createdWithBusStack, 'ResumeBus', RESUME_BUS_ARN),
}));

// One handler with notifications: no `--output`.
const singleStack = new Stack(app, 'Single', { env: STACK_ENV });
new ToolHandler(singleStack, 'Tools', props({ replyBus: new events.EventBus(singleStack, 'Replies'), approvalNotifications: new sns.Topic(singleStack, 'T') }));

// Every stack is built; now synthesize (the app is synthesized once).
const tc = Template.fromStack(created.stack);
const tu = Template.fromStack(userStack);
const tt = Template.fromStack(twoTablesStack);
const tTable = Template.fromStack(tableStack);
const tOther = Template.fromStack(otherStack);
const te = Template.fromStack(elsewhereStack);
const tcb = Template.fromStack(createdWithBusStack);
const ts = Template.fromStack(singleStack);

describe('owners', () => {
  test('two handlers get two owners, each matching the owner pattern', () => {
    const owners = [created.one.owner, created.two.owner, userOne.owner, userTwo.owner, ownOne.owner, ownTwo.owner];
    for (const owner of owners) expect(owner).toMatch(OWNER_PATTERN);
    expect(new Set(owners).size).toBe(owners.length);
    expect(created.one.owner).not.toBe(created.two.owner);
  });

  test('the same construct id in two stacks gives two owners (the path, not the id)', () => {
    expect(crossOne.owner).not.toBe(crossTwo.owner);
    const a = new ToolHandler(new Stack(unbundledApp(), 'StackA'), 'Tools', props());
    const b = new ToolHandler(new Stack(unbundledApp(), 'StackB'), 'Tools', props());
    expect(a.owner).not.toBe(b.owner);
  });

  test('the default is stable: the same app synthesized twice gives the same owners and the same templates', () => {
    const again = createdTableStack(unbundledApp());
    expect([again.one.owner, again.two.owner]).toEqual([created.one.owner, created.two.owner]);
    expect(Template.fromStack(again.stack).toJSON()).toEqual(tc.toJSON());
  });

  test('a deep path with long ids still gives an owner of at most 64 characters of the pattern, unique', () => {
    const stack = new Stack(unbundledApp(), 'A'.repeat(100));
    let scope: Construct = stack;
    for (let i = 0; i < 5; i++) scope = new Construct(scope, `Level${i}${'x'.repeat(60)}`);
    const first = new ToolHandler(scope, `Tools${'y'.repeat(80)}`, props());
    const second = new ToolHandler(scope, `Tools${'y'.repeat(79)}z`, props());
    for (const tools of [first, second]) {
      expect(tools.owner.length).toBeLessThanOrEqual(64);
      expect(tools.owner).toMatch(OWNER_PATTERN);
    }
    expect(first.owner).not.toBe(second.owner);
  });

  test('each handler sets its own owner on all four of its functions', () => {
    const resources = tc.toJSON().Resources;
    for (const tools of [created.one, created.two]) {
      const fns = functionsOf(tools);
      expect(fns).toHaveLength(4);
      for (const fn of fns) expect(resources[idOf(fn)].Properties.Environment.Variables[ENV.owner]).toBe(tools.owner);
    }
  });

  test("each handler's engine, API and expirer carry its owner tag", () => {
    const resources = tc.toJSON().Resources;
    for (const tools of [created.one, created.two]) {
      const [, engine, api, expirer] = functionsOf(tools);
      expect(tagsOf(resources[idOf(engine)])).toEqual({ 'cdk-tool-handler:function': 'approvals-engine', 'cdk-tool-handler:owner': tools.owner });
      expect(tagsOf(resources[idOf(api)])).toEqual({ 'cdk-tool-handler:function': 'approvals-api', 'cdk-tool-handler:owner': tools.owner });
      expect(tagsOf(resources[idOf(expirer)])).toEqual({ 'cdk-tool-handler:function': 'approvals-expirer', 'cdk-tool-handler:owner': tools.owner });
    }
  });

  test("each role's table grants name its own owner's keys and partitions only", () => {
    const policies = resourcesOf(tc, 'AWS::IAM::Policy');
    for (const [tools, other] of [[created.one, created.two], [created.two, created.one]]) {
      const mine = policies.filter(({ id }) => id.startsWith(tools.node.id));
      expect(mine.length).toBeGreaterThanOrEqual(4); // the handler's, the engine's, the API's and the expirer's
      const text = JSON.stringify(mine.map(({ resource }) => resource.Properties.PolicyDocument));
      expect(text).toContain(`call#${tools.owner}#*`);
      expect(text).toContain(`approval#${tools.owner}#*`);
      // Another owner's name appears in no grant, not even a Deny (the engine Deny names its own owner).
      expect(text).not.toContain(other.owner);
    }
  });

  test("every role of each owner is denied every other owner's functions, and carries its owner's tag", () => {
    for (const tools of [created.one, created.two]) {
      const approvals = tools.node.findChild('Approvals');
      const roles = [tools.lambdaFunction.role!, approvals.node.findChild('EngineRole'), approvals.node.findChild('ApiRole'),
        approvals.node.findChild('ExpirerRole'), tools.node.findChild('Expiry').node.findChild('Role')];
      for (const role of roles) {
        const roleId = idOf(role);
        const statements = resourcesOf(tc, 'AWS::IAM::Policy')
          .filter(({ resource }) => resource.Properties.Roles.some((r: any) => r.Ref === roleId))
          .flatMap(({ resource }) => resource.Properties.PolicyDocument.Statement);
        expect({ role: role.node.path, condition: statements.find((s: any) => s.Sid === 'CdkToolHandlerNoOtherOwnersFunctions')?.Condition }).toEqual({
          role: role.node.path,
          condition: {
            Null: { 'aws:ResourceTag/cdk-tool-handler:function': 'false' },
            StringNotEquals: { 'aws:ResourceTag/cdk-tool-handler:owner': tools.owner },
          },
        });
        expect(tagsOf(tc.toJSON().Resources[roleId])['cdk-tool-handler:owner']).toBe(tools.owner);
      }
    }
  });
});

describe('one resume path per table', () => {
  test('a created table shared through tools.approvalsTable: one pipe, one resume bus, beside the table', () => {
    expect(resourcesOf(tc, 'AWS::Pipes::Pipe').map(({ id }) => id)).toEqual([expect.stringMatching(/^OneApprovalsTableToolHandlerResumePipe/)]);
    expect(resourcesOf(tc, 'AWS::DynamoDB::Table')).toHaveLength(1);
    const path = created.one.node.findChild('ApprovalsTableToolHandlerResume');
    expect(path.node.children.map((c) => c.node.id).sort()).toEqual(['Bus', 'DeadLetterQueue', 'Pipe', 'RedriveResumeDeadLetters', 'Role']);
    expect(created.two.node.tryFindChild('ApprovalsTableToolHandlerResume')).toBeUndefined();
    expect(created.one.approvalsResumeBus).toBe(created.two.approvalsResumeBus);
    const buses = resourcesOf(tc, 'AWS::Events::EventBus').map(({ id }) => id);
    expect(buses.sort()).toEqual([expect.stringMatching(/^OneApprovalsTableToolHandlerResumeBus/), expect.stringMatching(/^Replies/)]);
    expect(resourcesOf(tc, 'AWS::IAM::Role').filter(({ resource }) => JSON.stringify(resource).includes('pipes.amazonaws.com'))).toHaveLength(1);
  });

  test('two resume rules on that bus, each matching its own owner and sending to its own queue', () => {
    const busId = idOf(created.one.approvalsResumeBus!);
    const rules = resourcesOf(tc, 'AWS::Events::Rule').filter(({ resource }) => JSON.stringify(resource.Properties.EventBusName ?? '').includes(busId));
    expect(rules.map(({ id }) => id).sort()).toEqual([expect.stringMatching(/^OneResumeRule/), expect.stringMatching(/^TwoResumeRule/)]);
    for (const tools of [created.one, created.two]) {
      const rule = tc.toJSON().Resources[idOf(tools.node.findChild('ResumeRule'))];
      expect(rule.Properties.EventBusName).toEqual({ Ref: busId });
      expect(rule.Properties.EventPattern).toEqual({
        'source': ['cdk-tool-handler-resume'],
        'detail-type': ['Tool Approval Decided'],
        'detail': { owner: [tools.owner] },
      });
      expect(rule.Properties.Targets).toHaveLength(1);
      expect(rule.Properties.Targets[0].Arn).toEqual({ 'Fn::GetAtt': [idOf(tools.queue), 'Arn'] });
      expect(rule.Properties.Targets[0].DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [idOf(tools.eventDeadLetterQueue), 'Arn'] } });
    }
  });

  test('the FIFO handler on a shared table sends its resumes in one message group; the standard one in none', () => {
    const targetOf = (tools: ToolHandler) => tc.toJSON().Resources[idOf(tools.node.findChild('ResumeRule'))].Properties.Targets[0];
    expect(targetOf(created.two).SqsParameters).toEqual({ MessageGroupId: 'approval-resumes' });
    expect(targetOf(created.one).SqsParameters).toBeUndefined();
  });

  test("no handler's role reads the table's stream: the pipe's role is its one reader", () => {
    const readers = resourcesOf(tc, 'AWS::IAM::Policy').filter(({ resource }) =>
      resource.Properties.PolicyDocument.Statement.some((s: any) => s.Effect === 'Allow' && [].concat(s.Action).includes('dynamodb:GetRecords' as never)),
    );
    expect(readers.map(({ id }) => id)).toEqual([expect.stringMatching(/^OneApprovalsTableToolHandlerResumeRole/)]);
  });

  test("a user's table shared by two handlers: one pipe beside the table, two rules", () => {
    expect(resourcesOf(tu, 'AWS::Pipes::Pipe').map(({ id }) => id)).toEqual([expect.stringMatching(/^ApprovalsToolHandlerResumePipe/)]);
    expect(userStack.node.findChild('ApprovalsToolHandlerResume').node.findChild('Pipe')).toBeDefined();
    expect(resourcesOf(tu, 'AWS::Events::EventBus')).toHaveLength(1);
    const rules = resourcesOf(tu, 'AWS::Events::Rule');
    expect(rules.map(({ resource }) => resource.Properties.EventPattern.detail.owner).sort()).toEqual([[userOne.owner], [userTwo.owner]].sort());
    expect(userOne.approvalsResumeBus).toBe(userTwo.approvalsResumeBus);
    const pipe = resourcesOf(tu, 'AWS::Pipes::Pipe')[0].resource;
    expect(pipe.Properties.Source).toEqual({ 'Fn::GetAtt': [idOf(approvalsTable), 'StreamArn'] });
  });

  test("a user's table with everything asked for, or another handler's table: no warning from any handler", () => {
    for (const tools of [userOne, userTwo, created.one, created.two]) {
      const stack = Stack.of(tools);
      const warnings = Annotations.fromStack(stack).findWarning(`/${stack.stackName}/${tools.node.id}`, Match.anyValue());
      expect(warnings.map((w) => String(w.entry.data))).toEqual([]);
    }
  });

  test('two handlers with a table each: two pipes, each reading its own table', () => {
    const pipes = resourcesOf(tt, 'AWS::Pipes::Pipe');
    expect(pipes).toHaveLength(2);
    expect(pipes.map(({ resource }) => resource.Properties.Source['Fn::GetAtt'][0]).sort()).toEqual(
      [idOf(ownOne.approvalsTable), idOf(ownTwo.approvalsTable)].sort(),
    );
    expect(ownOne.approvalsResumeBus).not.toBe(ownTwo.approvalsResumeBus);
  });

  test("handlers of two stacks on one table: the path in the table's stack, the other stack only adds its rule", () => {
    expect(resourcesOf(tTable, 'AWS::Pipes::Pipe')).toHaveLength(1);
    expect(resourcesOf(tOther, 'AWS::Pipes::Pipe')).toHaveLength(0);
    expect(resourcesOf(tOther, 'AWS::Events::EventBus')).toHaveLength(0);
    const rule = resourcesOf(tOther, 'AWS::Events::Rule')[0].resource;
    expect(rule.Properties.EventPattern.detail).toEqual({ owner: [crossTwo.owner] });
    expect(JSON.stringify(rule.Properties.EventBusName)).toContain('Fn::ImportValue');
  });
});

describe('one physical table imported as several objects', () => {
  const STREAM_ARN = 'arn:aws:dynamodb:us-east-1:123456789012:table/shared-approvals/stream/2030-01-01T00:00:00.000';
  const imported = (scope: Construct, id: string, tableName = 'shared-approvals') =>
    dynamodb.Table.fromTableAttributes(scope, id, { tableName, tableStreamArn: STREAM_ARN });
  const pipesOf = (stack: Stack) => resourcesOf(Template.fromStack(stack), 'AWS::Pipes::Pipe');

  test('two imports by the same name in one stack: one pipe, both rules on its bus', () => {
    const stack = new Stack(unbundledApp(), 'Imports', { env: STACK_ENV });
    const one = new ToolHandler(stack, 'One', props({ approvalsTable: imported(stack, 'TableA') }));
    const two = new ToolHandler(stack, 'Two', props({ approvalsTable: imported(stack, 'TableB') }));
    expect(pipesOf(stack)).toHaveLength(1);
    expect(one.approvalsResumeBus).toBe(two.approvalsResumeBus);
    const busId = idOf(one.approvalsResumeBus!);
    const rules = resourcesOf(Template.fromStack(stack), 'AWS::Events::Rule');
    expect(rules.map(({ resource }) => resource.Properties.EventBusName)).toEqual([{ Ref: busId }, { Ref: busId }]);
  });

  test('imports in two stacks of one account and region: one pipe, in the first stack; the other adds only its rule', () => {
    const app = unbundledApp();
    const first = new Stack(app, 'First', { env: STACK_ENV });
    const second = new Stack(app, 'Second', { env: STACK_ENV });
    new ToolHandler(first, 'Tools', props({ approvalsTable: imported(first, 'Table') }));
    const other = new ToolHandler(second, 'Tools', props({ approvalsTable: imported(second, 'Table') }));
    expect(pipesOf(first)).toHaveLength(1);
    expect(pipesOf(second)).toHaveLength(0);
    const rule = resourcesOf(Template.fromStack(second), 'AWS::Events::Rule')[0].resource;
    expect(rule.Properties.EventPattern.detail).toEqual({ owner: [other.owner] });
    expect(JSON.stringify(rule.Properties.EventBusName)).toContain('Fn::ImportValue');
  });

  test('where synth cannot tell it is one table, each object keeps its own path (the README says to pass one object)', () => {
    const app = unbundledApp();
    // Environment-agnostic stacks may be deployed to different accounts: the same name may be two tables.
    const agnosticA = new Stack(app, 'AgnosticA');
    const agnosticB = new Stack(app, 'AgnosticB');
    new ToolHandler(agnosticA, 'Tools', props({ approvalsTable: imported(agnosticA, 'Table') }));
    new ToolHandler(agnosticB, 'Tools', props({ approvalsTable: imported(agnosticB, 'Table') }));
    // Two different names, or a name known only at deploy time.
    const stack = new Stack(app, 'Names', { env: STACK_ENV });
    new ToolHandler(stack, 'One', props({ approvalsTable: imported(stack, 'TableA', 'approvals-a') }));
    new ToolHandler(stack, 'Two', props({ approvalsTable: imported(stack, 'TableB', 'approvals-b') }));
    new ToolHandler(stack, 'Three', props({ approvalsTable: imported(stack, 'TableC', Fn.importValue('ApprovalsTableName')) }));
    new ToolHandler(stack, 'Four', props({ approvalsTable: imported(stack, 'TableD', Fn.importValue('ApprovalsTableName')) }));
    expect([pipesOf(agnosticA), pipesOf(agnosticB)].map((p) => p.length)).toEqual([1, 1]);
    expect(pipesOf(stack)).toHaveLength(4);
  });
});

describe('approvalsResumeBus: a resume path made elsewhere', () => {
  test('no pipe, no bus, no pipe role here; the rule goes on the given bus', () => {
    expect(resourcesOf(te, 'AWS::Pipes::Pipe')).toHaveLength(0);
    expect(resourcesOf(te, 'AWS::Events::EventBus')).toHaveLength(0);
    expect(resourcesOf(te, 'AWS::IAM::Role').filter(({ resource }) => JSON.stringify(resource).includes('pipes.amazonaws.com'))).toHaveLength(0);
    const rule = resourcesOf(te, 'AWS::Events::Rule')[0].resource;
    expect(rule.Properties.EventBusName).toBe('approvals-resume');
    expect(rule.Properties.EventPattern.detail).toEqual({ owner: ['orders'] });
    expect(elsewhere.approvalsResumeBus).toBe(resumeBus);
  });

  test('also with a table of its own: the table is made, its stream is not read here', () => {
    expect(resourcesOf(tcb, 'AWS::DynamoDB::Table')).toHaveLength(1);
    expect(resourcesOf(tcb, 'AWS::Pipes::Pipe')).toHaveLength(0);
    expect(resourcesOf(tcb, 'AWS::Events::Rule')[0].resource.Properties.EventBusName).toBe('approvals-resume');
    expect(createdWithBus.node.tryFindChild('ApprovalsTableToolHandlerResume')).toBeUndefined();
  });
});

describe('the reply bus guard', () => {
  test('two bus policy statements however many handlers publish there', () => {
    const policies = resourcesOf(tc, 'AWS::Events::EventBusPolicy').filter(({ resource }) => resource.Properties.EventBusName.Ref === idOf(created.bus));
    expect(policies.map(({ resource }) => resource.Properties.StatementId)).toEqual([
      'cdk-CdkToolHandlerOnlyItsFunctionsPublish',
      'cdk-CdkToolHandlerEachOwnerItsOwnSource',
    ]);
    for (const { resource } of policies) {
      expect(resource.Properties.Statement).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'events:PutEvents' });
    }
  });

  test("both handlers' roles and both expirers' roles carry the publisher tag; no other role does", () => {
    const tagged = resourcesOf(tc, 'AWS::IAM::Role')
      .filter(({ resource }) => tagsOf(resource)['cdk-tool-handler:publisher'] === 'true')
      .map(({ id }) => id)
      .sort();
    const expected = [created.one, created.two]
      .flatMap((tools) => [idOf(tools.lambdaFunction.role!), idOf(tools.node.findChild('Approvals').node.findChild('ExpirerRole'))])
      .sort();
    expect(tagged).toEqual(expected);
  });
});

describe('notifications: the approve line', () => {
  const requestedOf = (template: Template, rulePath: string) =>
    template.toJSON().Resources[rulePath].Properties.Targets[0].InputTransformer.InputTemplate as string;
  const notificationRule = (tools: ToolHandler, id: 'Requested' | 'Expired') =>
    idOf(tools.node.findChild('ApprovalNotifications').node.findChild(id));

  test('with two approvals APIs in the stack, each names its own output with --output', () => {
    const outputs = Object.keys(tc.findOutputs('*')).filter((id) => id.endsWith('ApprovalsApiUrl'));
    expect(outputs).toHaveLength(2);
    const lines = [created.one, created.two].map((tools) => requestedOf(tc, notificationRule(tools, 'Requested')));
    const named = lines.map((line) => /--output (\S+)"$/.exec(line)?.[1]);
    expect([...named].sort()).toEqual([...outputs].sort());
    for (const [i, tools] of [created.one, created.two].entries()) {
      const output = tools.node.findAll().find((c): c is CfnOutput => c instanceof CfnOutput)!;
      expect(named[i]).toBe(Stack.of(tools).resolve(output.logicalId));
      expect(lines[i]).toMatch(/Approve: npx cdk-tool-handler approvals approve <detail-approval_id> --stack Created --output \S+"$/);
    }
  });

  test('the expired message carries no CLI line, with one or two APIs', () => {
    for (const tools of [created.one, created.two]) expect(requestedOf(tc, notificationRule(tools, 'Expired'))).not.toContain('--output');
  });

  test('with one approvals API in the stack, no --output', () => {
    const lines = resourcesOf(ts, 'AWS::Events::Rule')
      .map(({ resource }) => resource.Properties.Targets[0].InputTransformer?.InputTemplate)
      .filter((line): line is string => typeof line === 'string' && line.includes('Approve:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--stack Single"$/);
    expect(lines[0]).not.toContain('--output');
  });
});

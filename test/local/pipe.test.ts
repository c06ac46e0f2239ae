/**
 * The pipe's stand-in: the resume filter evaluated against real-shaped DynamoDB stream records
 * (only the decision matches), the input template yielding exactly {"approval_id": "<id>"}; then a
 * stack that has the pipe (FIFO queue) and an expirer, run through the demo.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileEventPattern } from '../../local/event-pattern';
import { decisionStreamRecord, matchesAny, renderInputTemplate, resumeMessage } from '../../local/pipe';
import { renderInput } from '../../local/rule-input';
import { editedAssembly, local, logicalId, synthesizeSample, removeMade } from './sample-assembly';

afterAll(removeMade);

const FILTER = {
  eventName: ['MODIFY'],
  dynamodb: {
    Keys: { pk: { S: [{ prefix: 'approval#' }] } },
    OldImage: { decision: { S: [{ exists: false }] } },
    NewImage: { decision: { S: [{ exists: true }] } },
  },
};
const TEMPLATE = '{"approval_id": "<$.dynamodb.NewImage.approvalId.S>"}';

const pending = {
  pk: { S: 'approval#apr_1' },
  approvalId: { S: 'apr_1' },
  tool: { S: 'refund' },
  args: { M: { orderId: { S: 'o-1' } } },
  expiresAt: { N: '1900000000' },
};
const decided = { ...pending, decision: { S: 'approved' }, decidedBy: { S: 'arn:aws:sts::1:assumed-role/A/alice' }, decidedAt: { N: '1' } };

function record(eventName: string, oldImage: object | undefined, newImage: object | undefined) {
  const keys = { pk: (newImage ?? oldImage) && ((newImage ?? oldImage) as any).pk };
  return { eventName, dynamodb: { Keys: keys, ...(oldImage ? { OldImage: oldImage } : {}), ...(newImage ? { NewImage: newImage } : {}) } };
}

describe('the filter', () => {
  test.each([
    ['the create', false, record('INSERT', undefined, pending)],
    ['the decision (approved)', true, record('MODIFY', pending, decided)],
    ['the decision (denied)', true, record('MODIFY', pending, { ...decided, decision: { S: 'denied' } })],
    ['the claim', false, record('MODIFY', decided, { ...decided, claimToken: { S: 't' }, claimedUntil: { N: '2' } })],
    ['the completion', false, record('MODIFY', decided, { ...decided, completedAt: { N: '3' } })],
    ['the expiry', false, record('MODIFY', pending, { ...pending, status: { S: 'expired' } })],
    ['a call item', false, record('MODIFY', { pk: { S: 'call#x' } }, { pk: { S: 'call#x' }, decision: { S: 'approved' } })],
    ['the deletion by TTL', false, record('REMOVE', decided, undefined)],
  ])('%s: matches %p', (_, expected, event) => {
    expect(matchesAny([compileEventPattern(FILTER)], event)).toBe(expected);
  });

  test('the stand-in\'s own decision record matches, and the template yields exactly {"approval_id"}', () => {
    const streamRecord = decisionStreamRecord(decided, ['pk']);
    expect(matchesAny([compileEventPattern(FILTER)], streamRecord)).toBe(true);
    expect(JSON.parse(renderInputTemplate(TEMPLATE, streamRecord))).toEqual({ approval_id: 'apr_1' });
  });

  test('FIFO: group and deduplication id from the record; no pipe: the fallback envelope', () => {
    const spec = { filters: [compileEventPattern(FILTER)], inputTemplate: TEMPLATE, messageGroupId: '$.dynamodb.NewImage.approvalId.S', deduplicationId: '$.dynamodb.NewImage.approvalId.S' };
    expect(resumeMessage(spec, decided, ['pk'])).toEqual({ body: '{"approval_id": "apr_1"}', groupId: 'apr_1', deduplicationId: 'apr_1', via: 'pipe' });
    expect(resumeMessage(undefined, decided, ['pk'])).toEqual({ body: '{"approval_id":"apr_1"}', via: 'fallback' });
    expect(resumeMessage({ ...spec, filters: [compileEventPattern({ ...FILTER, eventName: ['INSERT'] })] }, decided, ['pk'])).toEqual({
      skipped: "the pipe's filter does not match this decision",
    });
  });
});

describe('the resume path of a shared table: the pipe onto the resume bus, then the handler\'s rule', () => {
  const BUS_TEMPLATE = '{"approval_id": "<$.dynamodb.NewImage.approvalId.S>", "owner": "<$.dynamodb.NewImage.owner.S>"}';
  const pipe = { filters: [compileEventPattern(FILTER)], inputTemplate: BUS_TEMPLATE, busEvent: { source: 'cdk-tool-handler.approvals', detailType: 'Tool Approval Decided' } };
  const rule = (owner: string) => ({
    matches: compileEventPattern({ source: ['cdk-tool-handler.approvals'], 'detail-type': ['Tool Approval Decided'], detail: { owner: [owner] } }),
    input: { paths: { 'detail-approval_id': '$.detail.approval_id' }, template: '{"approval_id":<detail-approval_id>}' },
  });
  const ofOwner = (owner: string) => ({ ...decided, pk: { S: `approval#${owner}#apr_1` }, owner: { S: owner } });

  test("the owner's rule turns the decision into exactly the resume envelope; args never leave the table", () => {
    const message = resumeMessage(pipe, ofOwner('team-a'), ['pk'], rule('team-a'));
    expect(message).toEqual({ body: '{"approval_id":"apr_1"}', via: 'pipe' });
    expect(JSON.stringify(message)).not.toContain('o-1');
  });

  test("another owner's decision is skipped by this handler's rule", () => {
    expect(resumeMessage(pipe, ofOwner('team-b'), ['pk'], rule('team-a'))).toEqual({
      skipped: "the handler's resume rule does not match this decision (another owner's)",
    });
  });

  test('a FIFO rule target gives its static group; no rule at all is said so', () => {
    expect(resumeMessage(pipe, ofOwner('team-a'), ['pk'], { ...rule('team-a'), messageGroupId: 'approval-resumes' })).toMatchObject({ groupId: 'approval-resumes' });
    expect(resumeMessage(pipe, ofOwner('team-a'), ['pk'])).toEqual({ skipped: 'no rule of this handler on the resume bus' });
  });

  test('the input transformer quotes a string placed outside a JSON string, and not one placed inside (EventBridge\'s rule)', () => {
    const event = { detail: { id: 'a"b', n: 3 } };
    const paths = { id: '$.detail.id', n: '$.detail.n' };
    expect(JSON.parse(renderInput({ paths, template: '{"id": <id>, "n": <n>}' }, event))).toEqual({ id: 'a"b', n: 3 });
    expect(JSON.parse(renderInput({ paths, template: '{"text": "id <id> n <n>"}' }, event))).toEqual({ text: 'id a"b n 3' });
    expect(renderInput({ paths, template: '"plain <id>"' }, event)).toBe('plain a"b');
  });
});

/** A stand-in expirer: marks undecided approvals past expiresAt and announces them (what the construct's expirer does). */
const FAKE_EXPIRER = `
const { DynamoDBClient } = require('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient, ScanCommand, UpdateCommand } = require('@aws-sdk/lib-dynamodb');
const { EventBridgeClient, PutEventsCommand } = require('@aws-sdk/client-eventbridge');
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const bus = new EventBridgeClient({});
exports.handler = async () => {
  const table = process.env.TOOL_HANDLER_APPROVALS_TABLE;
  const now = Math.floor(Date.now() / 1000);
  const { Items = [] } = await db.send(new ScanCommand({ TableName: table }));
  for (const item of Items) {
    if (!String(item.pk).startsWith('approval#') || item.decision || item.expiredAt || item.expiresAt > now) continue;
    await db.send(new UpdateCommand({ TableName: table, Key: { pk: item.pk }, UpdateExpression: 'SET expiredAt = :now', ConditionExpression: 'attribute_not_exists(expiredAt)', ExpressionAttributeValues: { ':now': now } }));
    await bus.send(new PutEventsCommand({ Entries: [{ EventBusName: process.env.TOOL_HANDLER_REPLY_BUS, Source: 'cdk-tool-handler', DetailType: 'Tool Approval Expired',
      Detail: JSON.stringify({ approval_id: item.approvalId, tool: item.tool, run_id: item.runId, call_id: item.callId, expires_at: new Date(item.expiresAt * 1000).toISOString() }) }] }));
  }
  return { expired: true };
};
`;

test('a stack with the pipe (FIFO queue), an expirer and notifications: the pipe\'s template resumes, the expirer runs on its timer, the topic\'s messages are printed', async () => {
  const assembly = synthesizeSample();
  const expirerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-expirer-'));
  fs.writeFileSync(path.join(expirerDir, 'index.js'), FAKE_EXPIRER);
  const edited = editedAssembly(assembly, (template) => {
    const table = logicalId(template, 'AWS::DynamoDB::Table', 'ToolsApprovalsTable');
    const queue = logicalId(template, 'AWS::SQS::Queue', 'ToolsQueue');
    template.Resources[queue].Properties.FifoQueue = true;
    // The construct's own pipe when it has one (autoResume), else one as docs/approvals.md describes it; FIFO parameters added.
    const existing = Object.keys(template.Resources).find((k) => template.Resources[k].Type === 'AWS::Pipes::Pipe');
    const pipe = existing ?? 'ToolsApprovalsResumePipe';
    template.Resources[pipe] ??= {
      Type: 'AWS::Pipes::Pipe',
      Properties: {
        Source: { 'Fn::GetAtt': [table, 'StreamArn'] },
        Target: { 'Fn::GetAtt': [queue, 'Arn'] },
        SourceParameters: { FilterCriteria: { Filters: [{ Pattern: JSON.stringify(FILTER) }] }, DynamoDBStreamParameters: { StartingPosition: 'TRIM_HORIZON' } },
        TargetParameters: { InputTemplate: TEMPLATE },
      },
    };
    template.Resources[pipe].Properties.TargetParameters.SqsQueueParameters = {
      MessageGroupId: '$.dynamodb.NewImage.approvalId.S',
      MessageDeduplicationId: '$.dynamodb.NewImage.approvalId.S',
    };
    // The construct's expirer when it has one, else a stand-in.
    const expirer = Object.keys(template.Resources).find((k) => template.Resources[k].Type === 'AWS::Lambda::Function' && k.startsWith('ToolsApprovalsExpirer'));
    const hasExpirer = expirer !== undefined;
    if (expirer) template.Resources[expirer].Properties.Environment.Variables.TOOL_HANDLER_REPLY_BUS = { 'Fn::GetAtt': ['ToolsReplyBus', 'Arn'] };
    // A reply bus of the stack's own, with a rule that notifies a topic (approvalNotifications).
    template.Resources.ToolsReplyBus = { Type: 'AWS::Events::EventBus', Properties: { Name: 'replies' } };
    const handler = logicalId(template, 'AWS::Lambda::Function', 'ToolsFunction');
    template.Resources[handler].Properties.Environment.Variables.TOOL_HANDLER_REPLY_BUS = { 'Fn::GetAtt': ['ToolsReplyBus', 'Arn'] };
    template.Resources.ToolsNotifications = { Type: 'AWS::SNS::Topic', Properties: {} };
    template.Resources.ToolsNotifyRule = {
      Type: 'AWS::Events::Rule',
      Properties: {
        EventBusName: { Ref: 'ToolsReplyBus' },
        EventPattern: { source: [{ prefix: 'cdk-tool-handler.' }], 'detail-type': ['Tool Approval Requested', 'Tool Approval Expired'] },
        Targets: [
          {
            Id: 'Target0',
            Arn: { Ref: 'ToolsNotifications' },
            InputTransformer: {
              InputPathsMap: { 'detail-type': '$.detail-type', 'detail-approval_id': '$.detail.approval_id', 'detail-tool': '$.detail.tool' },
              InputTemplate: '"<detail-type>: tool <detail-tool>, approval <detail-approval_id>. Approve: npx cdk-tool-handler approvals approve <detail-approval_id> --stack ToolHandlerSample"',
            },
          },
        ],
      },
    };
    if (!hasExpirer) template.Resources.ToolsApprovalsExpirerFake = {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Code: { S3Bucket: 'x', S3Key: 'fake-expirer.zip' },
        Handler: 'index.handler',
        Timeout: 10,
        Environment: { Variables: { TOOL_HANDLER_APPROVALS_TABLE: { Ref: table }, TOOL_HANDLER_REPLY_BUS: { 'Fn::GetAtt': ['ToolsReplyBus', 'Arn'] } } },
      },
      Metadata: { 'aws:cdk:path': 'ToolHandlerSample/Tools/Approvals/Expirer/Resource', 'aws:asset:path': expirerDir },
    };
  });
  const result = await local(['local', 'demo', '--assembly', edited]);
  expect(result.code).toBe(0);
  expect(result.stderr).not.toContain('the stack has no resume pipe');
  expect(result.stderr).not.toContain('the stack has no reply bus');
  // The rule's input transformer, applied to the bus's events: what the topic would receive, with the
  // approve line that works here (`--local`, not the template's `--stack`).
  expect(result.stdout).toMatch(
    /^sns\(ToolsNotifications\): Tool Approval Requested: tool refund, approval (apr_\S+)\. Approve: npx cdk-tool-handler approvals approve \1 --local$/m,
  );
  expect(result.stdout).toMatch(/^sns\(ToolsNotifications\): Tool Approval Expired: tool refund, approval apr_\S+\./m);
  expect(result.stdout).not.toMatch(/^sns\(ToolsNotifications\): Tool Call Succeeded/m);
  // The template's own text: {"approval_id": "<id>"}, with its space.
  expect(result.stdout).toMatch(/^pipe: decision on (apr_\S+) → \{"approval_id":"\1"\} on the tool queue$/m);
  expect(result.stdout).not.toContain('pipe (stand-in');
  expect(result.stdout).toMatch(/^bus: Tool Approval Expired apr_\S+ refund$/m);
  expect(result.stdout).toContain('  ✓ the expirer marked it expired and published Tool Approval Expired');
  expect(result.stdout).toContain('demo: all 8 steps answered as expected');
}, 120_000);

/**
 * `bedrockFunctionSchema` and `addToBedrockAgent` on a synthesized (bundled) stack: the
 * action group's functions come from the tools manifest; object args become JSON-string parameters
 * and names Bedrock refuses leave their tool out, each with a warning; the Bedrock service may invoke
 * the function for that agent only.
 */
import * as path from 'node:path';
import { App, Stack, Token } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as bedrock from 'aws-cdk-lib/aws-bedrock';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ToolHandler } from '../../lib';
import { ENV } from './helpers';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'bedrock-tools.ts');
const TOOLS = ['submitVacationRequest', 'math', 'array', 'book', 'refund', 'orders.list', 'odd'];

function agentOf(stack: Stack, id = 'Agent', actionGroups?: bedrock.CfnAgent['actionGroups']): bedrock.CfnAgent {
  const role = new iam.Role(stack, `${id}Role`, { assumedBy: new iam.ServicePrincipal('bedrock.amazonaws.com') });
  return new bedrock.CfnAgent(stack, id, {
    agentName: id.toLowerCase(),
    agentResourceRoleArn: role.roleArn,
    foundationModel: 'anthropic.claude-3-haiku-20240307-v1:0',
    instruction: 'You help with orders and vacations, using the tools you are given.',
    actionGroups,
  });
}

function bedrockStack(context: Record<string, unknown> = {}) {
  const stack = new Stack(new App({ context }), 'Br', { env: ENV });
  const tools = new ToolHandler(stack, 'Tools', { entry: ENTRY, tools: TOOLS });
  return { stack, tools };
}

describe('with the manifest (bundled)', () => {
  const { stack, tools } = bedrockStack();
  const agent = agentOf(stack);
  const group = tools.addToBedrockAgent(agent, { actionGroupName: 'orders', description: 'Orders and vacations.' });
  const second = agentOf(stack, 'Other');
  tools.addToBedrockAgent(second);
  const template = Template.fromStack(stack);
  const fnId = stack.getLogicalId(tools.lambdaFunction.node.defaultChild as any);
  const functions = (template.findResources('AWS::Bedrock::Agent', { Properties: { AgentName: 'agent' } }) as any)[stack.getLogicalId(agent)]
    .Properties.ActionGroups[0].FunctionSchema.Functions;
  const byName = (name: string) => functions.find((f: any) => f.Name === name);
  const warnings = Annotations.fromStack(stack)
    .findWarning('/Br/Tools', Match.anyValue())
    .map((w) => String(w.entry.data));

  test('the action group: its name, description, the handler as executor, the functions', () => {
    template.hasResourceProperties('AWS::Bedrock::Agent', {
      AgentName: 'agent',
      ActionGroups: [
        {
          ActionGroupName: 'orders',
          Description: 'Orders and vacations.',
          ActionGroupExecutor: { Lambda: { 'Fn::GetAtt': [fnId, 'Arn'] } },
          FunctionSchema: { Functions: Match.anyValue() },
        },
      ],
    });
    expect(group.actionGroupName).toBe('orders');
    expect(functions.map((f: any) => f.Name)).toEqual(['submitVacationRequest', 'math', 'array', 'book', 'refund']);
  });

  test('parameters by the input schema: type, description, whether required', () => {
    expect(byName('submitVacationRequest')).toEqual({
      Name: 'submitVacationRequest',
      Description: 'Requests a vacation.',
      Parameters: {
        startDate: { Type: 'string', Description: 'First day, YYYY-MM-DD.', Required: true },
        endDate: { Type: 'string', Required: true },
      },
    });
    expect(byName('math').Parameters).toEqual({ a: { Type: 'number', Required: true }, b: { Type: 'number', Required: true } });
    expect(byName('array').Parameters).toEqual({ arg: { Type: 'array', Description: 'A JSON array.', Required: true } });
  });

  test('an object arg is a string parameter holding its JSON, with a warning; enum values go into the description', () => {
    expect(byName('book').Parameters).toEqual({
      guest: { Type: 'string', Description: 'A JSON object.', Required: true },
      note: { Type: 'string', Required: false },
      kind: { Type: 'string', Description: 'One of: "single", "double".', Required: true },
    });
    expect(warnings).toContainEqual(
      expect.stringContaining('Tool book: `args.guest` is an object, which Bedrock Agents parameters cannot be: it is a string parameter holding the object\'s JSON.'),
    );
  });

  test('a tool whose name, or an arg\'s, Bedrock does not accept is left out, with a warning', () => {
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Tool orders.list is left out of the action group: Bedrock accepts function names of the form ([0-9a-zA-Z][_-]?){1,100}.'),
        expect.stringContaining('Tool odd: it is left out of the action group: its arg first name is not a name Bedrock accepts'),
      ]),
    );
  });

  test('the Bedrock service may invoke the function for that agent only: one permission per agent', () => {
    const permissions = template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'bedrock.amazonaws.com' } });
    expect(Object.values<any>(permissions).map((p) => p.Properties)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
        Principal: 'bedrock.amazonaws.com',
        SourceAccount: '123456789012',
        SourceArn: { 'Fn::GetAtt': [stack.getLogicalId(agent), 'AgentArn'] },
      },
      expect.objectContaining({ SourceArn: { 'Fn::GetAtt': [stack.getLogicalId(second), 'AgentArn'] } }),
    ]);
    expect(Object.keys(permissions)).toEqual([expect.stringMatching(/InvokeByBedrockAgent[0-9A-F]{8}$/), expect.stringMatching(/InvokeByBedrockAgent2/)]);
  });

  test('the default action group name is the construct id', () => {
    template.hasResourceProperties('AWS::Bedrock::Agent', { AgentName: 'other', ActionGroups: [Match.objectLike({ ActionGroupName: 'Tools' })] });
  });
});

describe('refusals (no bundling)', () => {
  const unbundled = { 'aws:cdk:bundling-stacks': [] };

  test('without a manifest each allowlisted tool Bedrock accepts is a function without parameters, with a warning', () => {
    const { tools } = bedrockStack(unbundled);
    expect(tools.bedrockFunctionSchema()).toEqual({ functions: ['submitVacationRequest', 'math', 'array', 'book', 'refund', 'odd'].map((name) => ({ name })) });
    const warnings = tools.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
    expect(warnings).toEqual(
      expect.arrayContaining([expect.stringContaining('No tools manifest was read (bundling skipped): each allowlisted tool is sent to Bedrock Agents without parameters.')]),
    );
  });

  test.each(['_lead', 'a__b', 'with space', 'x'.repeat(101)])('an actionGroupName Bedrock refuses (%s) is a synth error', (name) => {
    const { stack, tools } = bedrockStack(unbundled);
    expect(() => tools.addToBedrockAgent(agentOf(stack), { actionGroupName: name })).toThrow(
      `Br/Tools: \`actionGroupName\` must be of the form ([0-9a-zA-Z][_-]?){1,100}, got: ${JSON.stringify(name)}.`,
    );
  });

  test('an action group of the same name already on the agent is a synth error', () => {
    const { stack, tools } = bedrockStack(unbundled);
    const agent = agentOf(stack, 'Agent', [{ actionGroupName: 'Tools', parentActionGroupSignature: 'AMAZON.UserInput' }]);
    expect(() => tools.addToBedrockAgent(agent)).toThrow('Br/Tools: `addToBedrockAgent`: the agent Br/Agent already has an action group named Tools; pass another `actionGroupName`.');
  });

  test('an agent whose action groups are a token cannot be added to: a synth error', () => {
    const { stack, tools } = bedrockStack(unbundled);
    const agent = agentOf(stack, 'Agent', Token.asAny({ resolve: () => [] }) as any);
    expect(() => tools.addToBedrockAgent(agent)).toThrow('lists its action groups as a token');
  });

  test('action groups the agent already has are kept', () => {
    const { stack, tools } = bedrockStack(unbundled);
    const agent = agentOf(stack, 'Agent', [{ actionGroupName: 'UserInput', parentActionGroupSignature: 'AMAZON.UserInput' }]);
    tools.addToBedrockAgent(agent);
    expect((agent.actionGroups as any[]).map((g) => g.actionGroupName)).toEqual(['UserInput', 'Tools']);
  });
});

/**
 * `addToGateway` on a real aws-bedrockagentcore Gateway in a synthesized (bundled) stack: the
 * target's inline schema lists exactly the allowlisted tools with their JSON Schemas, reduced to
 * what AgentCore accepts; the gateway's role may invoke the function; warnings name what changed.
 */
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import { ToolHandler } from '../../lib';
import { ENV, onlyResource, statementsOfRole, actionsOf } from './helpers';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'gateway-tools.ts');

function gatewayStack(context: Record<string, unknown> = {}, targetName?: string) {
  const app = new App({ context });
  const stack = new Stack(app, 'Gw', { env: ENV });
  const tools = new ToolHandler(stack, 'Tools', { entry: ENTRY, tools: ['charge', 'refund', 'lookup'] });
  const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'agents' });
  const target = tools.addToGateway(gateway, targetName ? { gatewayTargetName: targetName } : {});
  return { stack, tools, gateway, target };
}

describe('with the manifest (bundled)', () => {
  const { stack, tools } = gatewayStack();
  const template = Template.fromStack(stack);
  const annotations = Annotations.fromStack(stack);
  const target = onlyResource(template, 'AWS::BedrockAgentCore::GatewayTarget').resource.Properties;

  test('the inline schema lists exactly the allowlisted tools with their reduced JSON Schemas, then resume_approval', () => {
    expect(target.Name).toBe('Tools');
    expect(target.TargetConfiguration.Mcp.Lambda.ToolSchema.InlinePayload).toEqual([
      {
        Name: 'charge',
        Description: 'Charges a card.',
        InputSchema: {
          Type: 'object',
          Properties: {
            amount: { Type: 'integer' },
            currency: { Type: 'string', Description: 'One of: "EUR", "USD".' },
            email: { Type: 'string' },
            tags: { Type: 'array', Items: { Type: 'string' } },
          },
          Required: ['amount', 'currency'],
        },
      },
      {
        Name: 'refund',
        Description: 'Refunds an order.',
        InputSchema: { Type: 'object', Properties: { orderId: { Type: 'string' } }, Required: ['orderId'] },
      },
      {
        Name: 'lookup',
        Description: 'lookup',
        InputSchema: {
          Type: 'object',
          Properties: { id: { Type: 'string' }, kind: { Type: 'string', Description: 'Must be "order".' } },
          Required: ['id', 'kind'],
        },
      },
      // refund requires approval: the Gateway's way to its result (gateway-resume-approval.test.ts).
      expect.objectContaining({ Name: 'resume_approval' }),
    ]);
  });

  test('points at the function; the gateway role may invoke it', () => {
    expect(target.TargetConfiguration.Mcp.Lambda.LambdaArn).toEqual({
      'Fn::GetAtt': [stack.getLogicalId(tools.lambdaFunction.node.defaultChild as any), 'Arn'],
    });
    const gatewayRole = onlyResource(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'bedrock-agentcore.amazonaws.com' } })]),
      }),
    }).id;
    const invoke = statementsOfRole(template, gatewayRole).filter((s) => actionsOf(s).includes('lambda:InvokeFunction'));
    expect(invoke).toHaveLength(1);
    expect(JSON.stringify(invoke[0].Resource)).toContain(stack.getLogicalId(tools.lambdaFunction.node.defaultChild as any));
  });

  test('warns about the union and the missing description, naming tool and path', () => {
    const warnings = annotations.findWarning('/Gw/Tools', Match.anyValue()).map((w) => String(w.entry.data));
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Tool lookup has no description, which AgentCore Gateway requires: its name is sent instead.'),
        expect.stringContaining('Tool lookup: `args.id` is a union, which AgentCore does not accept: only its first branch is sent.'),
      ]),
    );
    expect(warnings.filter((w) => w.includes('charge'))).toEqual([]); // a nullable union is no union
  });
});

test('warns when <target>___<tool> exceeds 64 characters', () => {
  const { stack } = gatewayStack({ 'aws:cdk:bundling-stacks': [] }, 'a-very-long-gateway-target-name-for-the-billing-and-refund-tools');
  const warnings = stack.node.findChild('Tools').node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
  expect(warnings).toEqual(
    expect.arrayContaining([
      expect.stringContaining(
        "The Gateway tool name a-very-long-gateway-target-name-for-the-billing-and-refund-tools___charge is 73 " +
          "characters, over AgentCore's 64: shorten `gatewayTargetName` or the tool name.",
      ),
    ]),
  );
});

test('with bundling skipped: each allowlisted tool as { type: object } named by itself, and a warning', () => {
  const { stack } = gatewayStack({ 'aws:cdk:bundling-stacks': [] });
  const tools = stack.node.findChild('Tools');
  // Read from the resource itself: synthesizing an unbundled stack stages the whole project.
  const target = stack.resolve((tools.node.findChild('GatewayTarget').node.defaultChild as any)._toCloudFormation());
  const payload = Object.values(target.Resources as Record<string, any>)[0].Properties.TargetConfiguration.Mcp.Lambda.ToolSchema.InlinePayload;
  expect(payload).toEqual([
    ...['charge', 'refund', 'lookup'].map((name) => ({ Name: name, Description: name, InputSchema: { Type: 'object' } })),
    // Whether a tool may need approval is unknown without the manifest.
    expect.objectContaining({ Name: 'resume_approval' }),
  ]);
  const warnings = tools.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data));
  expect(warnings).toEqual([expect.stringContaining('No tools manifest was read (bundling skipped)')]);
});

/**
 * The tools `local --mcp` lists, read from a template: CloudFormation's schema keys turned back into
 * JSON Schema at every level, while the args' own names stay as they are; only the gateway targets
 * of the chosen handler count.
 */
import { gatewayToolsOf } from '../../local/mcp-tools';

const target = (name: string, lambdaArn: unknown, inline: unknown[]) => ({
  Type: 'AWS::BedrockAgentCore::GatewayTarget',
  Properties: { Name: name, GatewayIdentifier: { 'Fn::GetAtt': ['Gw', 'GatewayIdentifier'] }, TargetConfiguration: { Mcp: { Lambda: { LambdaArn: lambdaArn, ToolSchema: { InlinePayload: inline } } } } },
});

test('nested schemas: Type, Description, Properties, Required, Items become JSON Schema; property names are kept', () => {
  const template = {
    Resources: {
      Target: target('billing', { 'Fn::GetAtt': ['Handler', 'Arn'] }, [
        {
          Name: 'charge',
          Description: 'Charges.',
          InputSchema: {
            Type: 'object',
            Properties: {
              Type: { Type: 'string', Description: 'An arg named Type.' },
              lines: { Type: 'array', Items: { Type: 'object', Properties: { qty: { Type: 'integer' } }, Required: ['qty'] } },
            },
            Required: ['Type'],
          },
        },
      ]),
      Other: target('other', { 'Fn::GetAtt': ['AnotherHandler', 'Arn'] }, [{ Name: 'x', Description: 'x', InputSchema: { Type: 'object' } }]),
    },
  };
  expect(gatewayToolsOf(template, 'Handler')).toEqual([
    {
      name: 'billing___charge',
      description: 'Charges.',
      inputSchema: {
        type: 'object',
        properties: {
          Type: { type: 'string', description: 'An arg named Type.' },
          lines: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'] } },
        },
        required: ['Type'],
      },
      targetId: 'Target',
      gatewayId: 'Gw',
    },
  ]);
});

test('a template without a gateway target for the handler has no tools', () => {
  expect(gatewayToolsOf({ Resources: {} }, 'Handler')).toEqual([]);
});

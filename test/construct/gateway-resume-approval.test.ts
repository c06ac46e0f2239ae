/**
 * `resume_approval` in the gateway target's inline schema: added when an allowlisted tool
 * may require approval (manifest approval `always` or `depends`, or no manifest to tell), absent
 * otherwise; a user tool of that name is a synth error. The manifest is given directly here (the
 * bundled path: gateway.test.ts).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { createGatewayTarget } from '../../lib/hosts/gateway-target';
import type { ToolManifestEntry } from '../../lambda/construct-contract';
import { ENV } from './helpers';

function manifestTool(name: string, approval: string): ToolManifestEntry {
  return { name, description: `${name}.`, inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, approval, readOnly: false };
}

function inlinePayload(manifest: ToolManifestEntry[] | undefined, allowlist = manifest?.map((t) => t.name) ?? ['a']): any[] {
  const stack = new Stack(new App(), 'Gw', { env: ENV });
  const scope = new Construct(stack, 'Tools');
  const fn = new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = 1') });
  const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'agents', authorizerConfiguration: agentcore.GatewayAuthorizer.usingAwsIam() });
  createGatewayTarget(scope, 'GatewayTarget', { gateway, lambdaFunction: fn, allowlist, manifest, options: { gatewayTargetName: 'billing' }, owner: 'billing' });
  const targets = Template.fromStack(stack).findResources('AWS::BedrockAgentCore::GatewayTarget');
  return Object.values<any>(targets)[0].Properties.TargetConfiguration.Mcp.Lambda.ToolSchema.InlinePayload;
}

const names = (payload: any[]) => payload.map((tool) => tool.Name);

test('a tool that always requires approval adds resume_approval, after the tools, taking { approval_id }', () => {
  const payload = inlinePayload([manifestTool('charge', 'never'), manifestTool('refund', 'always')]);
  expect(names(payload)).toEqual(['charge', 'refund', 'resume_approval']);
  expect(payload[2]).toEqual({
    Name: 'resume_approval',
    Description: expect.stringContaining('pass the approval_id of that reply'),
    InputSchema: {
      Type: 'object',
      Properties: { approval_id: { Type: 'string', Description: 'The approval_id of the pending_approval reply.' } },
      Required: ['approval_id'],
    },
  });
});

test('a tool whose approval depends on its args adds it too', () => {
  expect(names(inlinePayload([manifestTool('transfer', 'depends')]))).toEqual(['transfer', 'resume_approval']);
});

test('no allowlisted tool that may need approval: no resume_approval', () => {
  expect(names(inlinePayload([manifestTool('charge', 'never'), manifestTool('refund', 'always')], ['charge']))).toEqual(['charge']);
});

test('without a manifest (whether a tool needs approval is unknown) it is added', () => {
  expect(names(inlinePayload(undefined, ['a', 'b']))).toEqual(['a', 'b', 'resume_approval']);
});

test.each([
  ['in the allowlist', [manifestTool('resume_approval', 'never')], ['resume_approval']],
  ['in the module only', [manifestTool('charge', 'never'), manifestTool('resume_approval', 'never')], ['charge']],
])('a user tool named resume_approval (%s) is a synth error naming it', (_label, manifest, allowlist) => {
  expect(() => inlinePayload(manifest, allowlist)).toThrow(
    'Gw/Tools: `addToGateway` adds a tool named resume_approval (it resumes approvals through the Gateway), but the tools module defines one of that name: rename it.',
  );
});

/**
 * `addToGateway(gateway, { callerIdentity })` in the synthesized template: the gateway's REQUEST
 * interceptor (the package's prebuilt function, headers passed), the target that lets the proof's
 * header through, the signing key that only the interceptor's role may sign with (tried as every
 * other role, even one given `kms:*`), the handler's `kms:GetPublicKey` and nothing more, tags and
 * walls; one interceptor per gateway, shared by handlers with an equal identity; the synth errors
 * of a wrong set-up; and no dependency cycle when the gateway and the handler are in two stacks.
 * `callerAttribute` of `addToBedrockAgent` names the handler's session attribute.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as bedrock from 'aws-cdk-lib/aws-bedrock';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CALLER_PROOF_HEADER } from '../../lambda/caller-proof';
import { ENV as VARS, INTERCEPTOR_ENV } from '../../lambda/construct-contract';
import { CallerIdentity, ToolHandler } from '../../lib';
import { FUNCTION_ROLE, TAG } from '../../lib/permissions/tags';
import { conditionsHold, coversAction, decide, wildcard, type Decision } from './iam-evaluation';
import { actionsOf, ENV, onlyResource, props, statementsOfRole, unbundledApp } from './helpers';
import { concrete } from './template-values';

const DISCOVERY = 'https://issuer.example.com/.well-known/openid-configuration';
const identity = (overrides: Partial<Parameters<typeof CallerIdentity.jwt>[0]> = {}) =>
  CallerIdentity.jwt({ discoveryUrl: DISCOVERY, clients: ['client-1'], claims: ['email', 'groups'], ...overrides });

function gatewayStack(app: App = unbundledApp()) {
  const stack = new Stack(app, 'Gw', { env: ENV });
  const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'agents' });
  const tools = new ToolHandler(stack, 'Tools', props({ owner: 'shop' }));
  return { app, stack, gateway, tools };
}

const logicalId = (stack: Stack, construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as any);

describe('one handler on a gateway with callerIdentity', () => {
  const { stack, gateway, tools } = gatewayStack();
  const second = new ToolHandler(stack, 'More', props({ owner: 'shop2' }));
  tools.addToGateway(gateway, { callerIdentity: identity() });
  second.addToGateway(gateway, { callerIdentity: identity({ claims: ['groups', 'email'] }) });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, any>;
  const where = { account: ENV.account, region: ENV.region };
  const interceptor = onlyResource(template, 'AWS::Lambda::Function', { Description: Match.stringLikeRegexp('Gateway interceptor') });
  const key = onlyResource(template, 'AWS::KMS::Key');
  const keyArn = { 'Fn::GetAtt': [key.id, 'Arn'] };
  const interceptorRoleId = interceptor.resource.Properties.Role['Fn::GetAtt'][0];
  const handlerRoleIds = [tools, second].map((t) => (t.lambdaFunction.role!.node.defaultChild as any)).map((r) => stack.getLogicalId(r));
  const roleIds = Object.keys(template.findResources('AWS::IAM::Role'));

  test('the gateway has one REQUEST interceptor, the package function, with the request headers passed', () => {
    const config = onlyResource(template, 'AWS::BedrockAgentCore::Gateway').resource.Properties.InterceptorConfigurations;
    expect(config).toEqual([
      {
        InterceptionPoints: ['REQUEST'],
        Interceptor: { Lambda: { Arn: { 'Fn::GetAtt': [interceptor.id, 'Arn'] } } },
        InputConfiguration: { PassRequestHeaders: true },
      },
    ]);
  });

  test('each target lets the proof header (and the trace context\'s) through to its function (MetadataConfiguration.AllowedRequestHeaders)', () => {
    const targets = Object.values(template.findResources('AWS::BedrockAgentCore::GatewayTarget'));
    expect(targets).toHaveLength(2);
    for (const target of targets) {
      expect(target.Properties.MetadataConfiguration).toEqual({ AllowedRequestHeaders: [CALLER_PROOF_HEADER, 'traceparent', 'tracestate'] });
    }
  });

  test('the interceptor: its configuration, its own role, tags and log group', () => {
    const properties = interceptor.resource.Properties;
    expect(properties.Environment.Variables).toEqual({
      [INTERCEPTOR_ENV.callerDiscoveryUrl]: DISCOVERY,
      [INTERCEPTOR_ENV.callerAudiences]: '[]',
      [INTERCEPTOR_ENV.callerClients]: '["client-1"]',
      [INTERCEPTOR_ENV.callerClaims]: '["email","groups"]',
      [VARS.callerKey]: keyArn,
    });
    expect(properties.Handler).toBe('index.handler');
    expect(properties.Tags).toEqual(
      expect.arrayContaining([
        { Key: TAG.function, Value: FUNCTION_ROLE.interceptor },
        { Key: TAG.owner, Value: 'shop' },
      ]),
    );
    expect(resources[interceptorRoleId].Properties.Tags).toEqual(expect.arrayContaining([{ Key: TAG.owner, Value: 'shop' }]));
    expect(handlerRoleIds).not.toContain(interceptorRoleId);
    expect(properties.LoggingConfig.LogGroup).toEqual({ Ref: expect.stringMatching(/InterceptorLogGroup/) });
  });

  test("the interceptor's role writes its log group and signs with its key, nothing else, and carries the walls", () => {
    const statements = statementsOfRole(template, interceptorRoleId);
    const allows = statements.filter((s) => s.Effect === 'Allow').flatMap((s) => [].concat(s.Action));
    expect(allows.sort()).toEqual(['kms:Sign', 'logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(statements.find((s) => s.Action === 'kms:Sign').Resource).toEqual(keyArn);
    const sids = statements.filter((s) => s.Effect === 'Deny').map((s) => s.Sid);
    expect(sids).toEqual(expect.arrayContaining(['CdkToolHandlerNoOtherOwnersFunctions']));
  });

  test('the gateway role may invoke the interceptor', () => {
    const gatewayRole = onlyResource(template, 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'bedrock-agentcore.amazonaws.com' } })]),
      }),
    }).id;
    const invoked = statementsOfRole(template, gatewayRole)
      .filter((s) => [].concat(s.Action).includes('lambda:InvokeFunction' as never))
      .flatMap((s) => [].concat(s.Resource));
    expect(JSON.stringify(invoked)).toContain(interceptor.id);
  });

  test('the signing key: ECC_NIST_P256 for SIGN_VERIFY, described, deleted with the stack', () => {
    expect(key.resource.Properties).toMatchObject({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', PendingWindowInDays: 7 });
    expect(key.resource.Properties.Description).toMatch(/Signs the proofs of AgentCore Gateway .*only its interceptor's role may sign/);
    expect(key.resource.DeletionPolicy).toBe('Delete');
  });

  test('each handler gets the key in its environment and kms:GetPublicKey on it, no other KMS action', () => {
    for (const handler of [tools, second]) {
      const fn = resources[logicalId(stack, handler.lambdaFunction)];
      expect(fn.Properties.Environment.Variables[VARS.callerKey]).toEqual(keyArn);
    }
    for (const roleId of handlerRoleIds) {
      const kms = statementsOfRole(template, roleId).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
      expect(kms).toEqual([{ Effect: 'Allow', Action: 'kms:GetPublicKey', Resource: keyArn }]);
    }
  });

  /** How IAM decides `action` on the key for `roleId`: its identity policies, the key policy's Denies (its Allow is the account's, which delegates to IAM). */
  function onKey(roleId: string, action: string, extra: any[] = []): Decision {
    const keyMarker = String(concrete(keyArn, resources, where));
    const roleArn = String(concrete({ 'Fn::GetAtt': [roleId, 'Arn'] }, resources, where));
    const identityStatements = [...statementsOfRole(template, roleId), ...extra]
      .map((s) => concrete(s, resources, where) as any)
      .filter((s) => coversAction(s, action) && [].concat(s.Resource).some((r: string) => wildcard(r, keyMarker)));
    const keyPolicy = (concrete(key.resource.Properties.KeyPolicy, resources, where) as any).Statement.filter(
      (s: any) => s.Effect === 'Deny' && coversAction(s, action),
    );
    return decide([...identityStatements, ...keyPolicy], (s) =>
      conditionsHold(s.Condition, (name) => {
        if (name === 'aws:PrincipalArn') return [roleArn];
        throw new Error(`the model does not know ${name}`);
      }),
    );
  }

  test('only the interceptor role may Sign; every other role of the stack is refused, even given kms:* on *', () => {
    expect(onKey(interceptorRoleId, 'kms:Sign')).toBe('allowed');
    const others = roleIds.filter((id) => id !== interceptorRoleId);
    expect(others.length).toBeGreaterThan(5);
    const everything = { Effect: 'Allow', Action: 'kms:*', Resource: '*' };
    for (const roleId of others) {
      expect([roleId, onKey(roleId, 'kms:Sign')]).toEqual([roleId, expect.stringMatching(/denied/)]);
      expect([roleId, onKey(roleId, 'kms:Sign', [everything])]).toEqual([roleId, 'explicitly denied']);
    }
    for (const roleId of handlerRoleIds) expect(onKey(roleId, 'kms:GetPublicKey')).toBe('allowed');
  });

  test('the interceptor role is not allowed what a handler does (GetPublicKey, invoke), beyond what it needs', () => {
    expect(onKey(interceptorRoleId, 'kms:GetPublicKey')).toBe('denied by default');
    expect(onKey(interceptorRoleId, 'kms:ScheduleKeyDeletion')).toBe('denied by default');
  });
});

describe('synth errors', () => {
  test('a second handler with another identity on the same gateway', () => {
    const { stack, gateway, tools } = gatewayStack();
    tools.addToGateway(gateway, { callerIdentity: identity() });
    const other = new ToolHandler(stack, 'Other', props());
    expect(() => other.addToGateway(gateway, { callerIdentity: identity({ claims: ['email'] }) })).toThrow(
      /Gw\/Other: `addToGateway`: the gateway Gw\/Gateway already proves its callers with another `callerIdentity`.*same `discoveryUrl`, `audience`, `clients` and `claims`/,
    );
  });

  test('one handler on two gateways with callerIdentity (it checks one key)', () => {
    const { stack, gateway, tools } = gatewayStack();
    tools.addToGateway(gateway, { callerIdentity: identity() });
    const other = new agentcore.Gateway(stack, 'Other', { gatewayName: 'others' });
    expect(() => tools.addToGateway(other, { callerIdentity: identity() })).toThrow(
      /Gw\/Tools: `addToGateway` with `callerIdentity`: this handler already proves the callers of the gateway Gw\/Gateway, and a handler checks one gateway's proofs/,
    );
    expect(() => tools.addToGateway(other)).not.toThrow();
  });

  test('an imported gateway cannot take the interceptor', () => {
    const { stack, tools } = gatewayStack();
    const imported = agentcore.Gateway.fromGatewayAttributes(stack, 'Imported', {
      gatewayArn: 'arn:aws:bedrock-agentcore:us-east-1:123456789012:gateway/agents-abc',
      gatewayId: 'agents-abc',
      gatewayName: 'agents',
      role: undefined as any,
    });
    expect(() => tools.addToGateway(imported, { callerIdentity: identity() })).toThrow(
      /Gw\/Tools: `addToGateway` with `callerIdentity` adds a REQUEST interceptor to the gateway, which needs the Gateway made in this app.*an imported gateway cannot take one/,
    );
  });

  test('a gateway that already has a REQUEST interceptor of its own', () => {
    const { stack, gateway, tools } = gatewayStack();
    const own = new lambda.Function(stack, 'Own', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler=async()=>({})') });
    gateway.addInterceptor(agentcore.LambdaInterceptor.forRequest(own));
    expect(() => tools.addToGateway(gateway, { callerIdentity: identity() })).toThrow(
      /Gw\/Tools: `addToGateway` with `callerIdentity`: the gateway Gw\/Gateway already has a REQUEST interceptor, and AgentCore allows one per gateway/,
    );
  });

  test.each([
    [{ clients: undefined, audience: undefined }, /CallerIdentity.jwt: give `audience` or `clients` \(or both\)/],
    [{ clients: [], audience: [] }, /CallerIdentity.jwt: give `audience` or `clients` \(or both\)/],
    [{ discoveryUrl: 'http://issuer.example.com/.well-known/openid-configuration' }, /`discoveryUrl` must be an https:\/\/ URL/],
    [{ discoveryUrl: 'https://issuer.example.com/' }, /ending in \/.well-known\/openid-configuration/],
    [{ discoveryUrl: '' }, /`discoveryUrl` is required/],
    [{ claims: [''] }, /CallerIdentity.jwt `claims` must be a list of non-empty strings/],
  ])('CallerIdentity.jwt(%j) is refused, naming the option', (overrides, message) => {
    expect(() => identity(overrides as any)).toThrow(message);
  });

  test('a loopback http issuer is accepted (a local run), an audience alone too', () => {
    const local = CallerIdentity.jwt({ discoveryUrl: 'http://127.0.0.1:8080/.well-known/openid-configuration', audience: ['api'] });
    expect(local).toMatchObject({ audience: ['api'], clients: [], claims: [] });
  });
});

test('no dependency cycle, whether the gateway is made before or after the handler (synthesis fails on one)', () => {
  const app = unbundledApp();
  const stack = new Stack(app, 'Late', { env: ENV });
  const tools = new ToolHandler(stack, 'Tools', props());
  const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'agents' });
  tools.addToGateway(gateway, { callerIdentity: identity() });
  const template = Template.fromStack(stack);
  // The interceptor and its key live with the gateway.
  const keyId = onlyResource(template, 'AWS::KMS::Key').id;
  expect(keyId).toMatch(/^GatewayCdkToolHandlerCallerProofsSigningKey/);
});

test('without callerIdentity: no interceptor, no key, no proof header (the trace context\'s only), no caller key in the environment', () => {
  const { stack, gateway, tools } = gatewayStack();
  tools.addToGateway(gateway);
  const template = Template.fromStack(stack);
  expect(template.findResources('AWS::KMS::Key')).toEqual({});
  expect(onlyResource(template, 'AWS::BedrockAgentCore::Gateway').resource.Properties.InterceptorConfigurations).toBeUndefined();
  expect(onlyResource(template, 'AWS::BedrockAgentCore::GatewayTarget').resource.Properties.MetadataConfiguration).toEqual({
    AllowedRequestHeaders: ['traceparent', 'tracestate'],
  });
  const fn = template.toJSON().Resources[logicalId(stack, tools.lambdaFunction)];
  expect(fn.Properties.Environment.Variables[VARS.callerKey]).toBeUndefined();
});

describe('addToBedrockAgent with callerAttribute', () => {
  const agent = (stack: Stack, id: string) =>
    new bedrock.CfnAgent(stack, id, { agentName: id, foundationModel: 'anthropic.claude-3-haiku-20240307-v1:0' });

  test("sets the handler's session attribute", () => {
    const { stack, tools } = gatewayStack();
    tools.addToBedrockAgent(agent(stack, 'Agent'), { callerAttribute: 'userId' });
    const fn = Template.fromStack(stack).toJSON().Resources[logicalId(stack, tools.lambdaFunction)];
    expect(fn.Properties.Environment.Variables[VARS.bedrockCallerAttribute]).toBe('userId');
  });

  test('two agents naming different attributes for one handler is a synth error', () => {
    const { stack, tools } = gatewayStack();
    tools.addToBedrockAgent(agent(stack, 'A'), { callerAttribute: 'userId' });
    expect(() => tools.addToBedrockAgent(agent(stack, 'B'), { callerAttribute: 'user' })).toThrow(
      /Gw\/Tools: `addToBedrockAgent`: this handler already reads its caller from the session attribute "userId"/,
    );
    expect(() => tools.addToBedrockAgent(agent(stack, 'C'), { callerAttribute: ' ' })).toThrow(/`callerAttribute` must name a session attribute/);
  });
});

test('cdk-nag (AWS Solutions) passes; the interceptor and its key acknowledge only the runtime and the rotation KMS cannot do', () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'nag-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = new Stack(app, 'Nag', { env: ENV });
  const gateway = new agentcore.Gateway(stack, 'Gateway', {
    gatewayName: 'agents',
    authorizerConfiguration: agentcore.GatewayAuthorizer.usingCustomJwt({ discoveryUrl: DISCOVERY, allowedClients: ['client-1'] }),
  });
  const tools = new ToolHandler(stack, 'Tools', props({ runtime: lambda.Runtime.NODEJS_24_X }));
  tools.addToGateway(gateway, { callerIdentity: identity() });
  expect(() => app.synth()).not.toThrow();
  const acknowledged = app.node
    .findAll()
    .filter((c) => c.node.path.startsWith('Nag/Gateway/'))
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) =>
          Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason })),
        ),
    );
  const ids = (fn: lambda.IFunction) => stack.getLogicalId(fn.node.defaultChild as any);
  const interceptor = gateway.node.findChild('CdkToolHandlerCallerProofs').node.findChild('Interceptor') as lambda.IFunction;
  expect(acknowledged.map(({ path: p, id }) => `${p} ${id}`).sort()).toEqual([
    'Nag/Gateway/CdkToolHandlerCallerProofs/Interceptor AwsSolutions-L1',
    'Nag/Gateway/CdkToolHandlerCallerProofs/SigningKey AwsSolutions-KMS5',
    `Nag/Gateway/ServiceRole/DefaultPolicy AwsSolutions-IAM5[Resource::<${ids(interceptor)}.Arn>:*]`,
    `Nag/Gateway/ServiceRole/DefaultPolicy AwsSolutions-IAM5[Resource::<${ids(tools.lambdaFunction)}.Arn>:*]`,
  ].sort());
  for (const { reason } of acknowledged) expect(reason.length).toBeGreaterThan(40);
});

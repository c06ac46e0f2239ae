import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApprovalsInbox, InboxSignIn, ToolHandler } from '../../lib';
import { INBOX_ENV } from '../../lambda/construct-contract';
import { ENV, props } from '../construct/helpers';
import { evaluateInvoke, invokeChecks } from '../construct/lambda-iam';

// Held to aws-cdk-lib's check of templates against CloudFormation's rules, which jest.config.js turns
// off for most test files.
process.env.CDK_VALIDATION = 'true';

/**
 * The inbox's template: an HTTP API in front of the package's inbox function, Cognito (the default)
 * or an existing OIDC provider, the function's reach (each served owner's approvals, decided as the
 * approvals API decides), no dependency cycle, and cdk-nag's AWS Solutions checks passing with each
 * acknowledgement's reason. Synthesized once per sign-in, without bundling.
 */
function nagApp(): App {
  const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'inbox-')), context: { 'aws:cdk:bundling-stacks': [] } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return app;
}

function inboxStack(signIn?: InboxSignIn) {
  const app = nagApp();
  const stack = new Stack(app, 'Inbox', { env: ENV });
  const refunds = new ToolHandler(stack, 'Refunds', props({ owner: 'refunds' }));
  const payouts = new ToolHandler(stack, 'Payouts', props({ owner: 'payouts' }));
  const inbox = new ApprovalsInbox(stack, 'Inbox', {
    handlers: [refunds, payouts],
    ...(signIn ? { signIn } : {}),
    approvers: [{ groups: ['finance'], handlers: [payouts] }],
  });
  for (const handler of [refunds, payouts]) {
    Validations.of(handler.lambdaFunction).acknowledge({ id: 'AwsSolutions-L1', reason: "The tests' handlers run on the construct's default runtime, the one the runtime library is tested on." });
  }
  const assembly = app.synth();
  const report = JSON.parse(fs.readFileSync(path.join(assembly.directory, 'validation-report.json'), 'utf8'));
  return { stack, inbox, template: Template.fromStack(stack), report };
}

const cognito = inboxStack();
const oidc = inboxStack(InboxSignIn.oidc({ issuer: 'https://login.example.com/oauth2/default', clientId: 'inbox-client', groupsClaim: 'groups' }));

function inboxFunction(template: Template): any {
  const fns = template.findResources('AWS::Lambda::Function', { Properties: { Environment: { Variables: { [INBOX_ENV.origin]: {} } } } });
  const ids = Object.keys(fns).filter((id) => fns[id].Properties.Environment.Variables[INBOX_ENV.clientId] !== undefined);
  expect(ids).toHaveLength(1);
  return fns[ids[0]];
}

test('synthesizes without a dependency cycle, and passes cdk-nag', () => {
  for (const { report } of [cognito, oidc]) expect(report.pluginReports ?? []).toEqual([]);
});

test('Cognito: a pool without self sign-up and with MFA required, managed login, a public code + PKCE client whose callback is the inbox', () => {
  const t = cognito.template;
  t.hasResourceProperties('AWS::Cognito::UserPool', { AdminCreateUserConfig: { AllowAdminCreateUserOnly: true }, MfaConfiguration: 'ON' });
  t.resourceCountIs('AWS::Cognito::ManagedLoginBranding', 1);
  t.hasResourceProperties('AWS::Cognito::UserPoolDomain', { ManagedLoginVersion: 2 });
  const client = Object.values<any>(t.findResources('AWS::Cognito::UserPoolClient'))[0].Properties;
  expect(client.GenerateSecret).toBe(false);
  expect(client.AllowedOAuthFlows).toEqual(['code']);
  expect(JSON.stringify(client.CallbackURLs)).toContain('ApiEndpoint');
  // Signing out ends the Cognito session at its /logout, which sends the browser back to the inbox.
  expect(client.LogoutURLs).toEqual(client.CallbackURLs);
  t.hasResourceProperties('AWS::Cognito::UserPoolGroup', { GroupName: 'finance' });
  const env = inboxFunction(t).Properties.Environment.Variables;
  expect(JSON.stringify(env[INBOX_ENV.endSessionEndpoint])).toMatch(/\/logout"\]\]\}$/);
  expect(JSON.stringify(env[INBOX_ENV.endSessionEndpoint])).toBe(JSON.stringify(env[INBOX_ENV.tokenEndpoint]).replace('/oauth2/token', '/logout'));
  expect(env[INBOX_ENV.groupsClaim]).toBe('cognito:groups');
  expect(JSON.parse(env[INBOX_ENV.approvers])).toEqual({ payouts: ['finance'] });
});

test('OIDC: no pool; the function and the JWT authorizer take the given issuer and client', () => {
  const t = oidc.template;
  t.resourceCountIs('AWS::Cognito::UserPool', 0);
  const env = inboxFunction(t).Properties.Environment.Variables;
  expect(env[INBOX_ENV.issuer]).toBe('https://login.example.com/oauth2/default');
  expect(env[INBOX_ENV.clientId]).toBe('inbox-client');
  // Signing out: the provider's end_session_endpoint, read from its discovery document at run time.
  expect(env[INBOX_ENV.endSessionEndpoint]).toBeUndefined();
  t.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
    AuthorizerType: 'JWT',
    JwtConfiguration: { Issuer: 'https://login.example.com/oauth2/default', Audience: ['inbox-client'] },
  });
  // The page is public; only the API routes sit behind the authorizer.
  t.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /', AuthorizationType: 'NONE' });
  t.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'POST /api/{proxy+}', AuthorizationType: 'JWT' });
});

test("the inbox's role reaches each served owner's approvals as the approvals API does, and invokes no tagged function", () => {
  const t = cognito.template;
  const policies = Object.values<any>(t.findResources('AWS::IAM::Policy')).filter((p) => /InboxOwner\d/.test(JSON.stringify(p.Properties.PolicyName)));
  const text = JSON.stringify(policies);
  expect(policies).toHaveLength(2);
  for (const owner of ['refunds', 'payouts']) expect(text).toContain(`approval#${owner}#`);
  expect(text).not.toContain('call#');
  const role = Object.values<any>(t.findResources('AWS::IAM::Policy')).find((p) => JSON.stringify(p).includes('CdkToolHandlerNoOwnersFunctions'));
  expect(role).toBeDefined();
});

test("each handler learns its approvals' inbox link", () => {
  const t = cognito.template;
  const handlers = Object.values<any>(t.findResources('AWS::Lambda::Function')).filter((f) => f.Properties.Environment?.Variables?.TOOL_HANDLER_APPROVALS_ENGINE);
  expect(handlers.map((f) => JSON.stringify(f.Properties.Environment.Variables.TOOL_HANDLER_INBOX_URL)).sort()).toEqual([
    expect.stringContaining('/#/o/payouts/a/'),
    expect.stringContaining('/#/o/refunds/a/'),
  ]);
});

test("an approvers entry may name several groups, and a handler named by several entries takes every one's groups", () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Groups', { env: ENV });
  const refunds = new ToolHandler(stack, 'Refunds', props({ owner: 'refunds' }));
  const payouts = new ToolHandler(stack, 'Payouts', props({ owner: 'payouts' }));
  new ApprovalsInbox(stack, 'Inbox', {
    handlers: [refunds, payouts],
    signIn: InboxSignIn.oidc({ issuer: 'https://id.example.com', clientId: 'c' }),
    approvers: [
      { groups: ['support-leads', 'on-call'], handlers: [refunds] },
      { groups: ['finance'], handlers: [refunds, payouts] },
    ],
  });
  const env = inboxFunction(Template.fromStack(stack)).Properties.Environment.Variables;
  expect(JSON.parse(env[INBOX_ENV.approvers])).toEqual({ refunds: ['support-leads', 'on-call', 'finance'], payouts: ['finance'] });
});

test('bad props are synth errors that say what to change', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'One', { env: ENV });
  const tools = new ToolHandler(stack, 'Tools', props({ owner: 'refunds' }));
  const other = new ToolHandler(new Stack(app, 'Two', { env: ENV }), 'Tools', props({ owner: 'payouts' }));
  const oidc = InboxSignIn.oidc({ issuer: 'https://id.example.com', clientId: 'c' });
  expect(() => new ApprovalsInbox(stack, 'Empty', { handlers: [], signIn: oidc })).toThrow(/`handlers` must name at least one ToolHandler/);
  expect(() => new ApprovalsInbox(stack, 'Twice', { handlers: [tools, tools], signIn: oidc })).toThrow(/two handlers share the owner refunds/);
  expect(() => new ApprovalsInbox(stack, 'Elsewhere', { handlers: [other], signIn: oidc })).toThrow(/is in another stack; put the inbox in the stack of the handlers it serves/);
  expect(() => new ApprovalsInbox(stack, 'NotServed', { handlers: [tools], signIn: oidc, approvers: [{ groups: ['g'], handlers: [other] }] })).toThrow(/names a handler .* that is not among `handlers`/);
  expect(() => new ApprovalsInbox(stack, 'NoGroups', { handlers: [tools], signIn: oidc, approvers: [{ groups: [], handlers: [tools] }] })).toThrow(/an `approvers` entry has no `groups`; name at least one group/);
  expect(() => new ApprovalsInbox(stack, 'Spaced', { handlers: [tools], signIn: oidc, approvers: [{ groups: ['a b'], handlers: [tools] }] })).toThrow(/group must be 1 to 128 characters without spaces/);
  expect(() => new ApprovalsInbox(stack, 'Http', { handlers: [tools], signIn: InboxSignIn.oidc({ issuer: 'http://id.example.com', clientId: 'c' }) })).toThrow(/`issuer` must be an https URL/);
  expect(() => new ApprovalsInbox(stack, 'Prefix', { handlers: [tools], signIn: InboxSignIn.cognito({ domainPrefix: 'my-aws-inbox' }) })).toThrow(/`domainPrefix` must be/);
});

test("a handler's tool code cannot invoke the inbox function, even once its role is given lambda:* on *", () => {
  const t = cognito.template.toJSON();
  const resources = t.Resources as Record<string, any>;
  const [inboxId, inboxFn] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.[INBOX_ENV.origin])!;
  const tags = Object.fromEntries((inboxFn.Properties.Tags ?? []).map((tag: any) => [tag.Key, tag.Value]));
  expect(tags['cdk-tool-handler:function']).toBe('approvals-inbox');
  const handlerFn = Object.values(resources).find((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.TOOL_HANDLER_APPROVALS_ENGINE && r.Properties.Environment.Variables.TOOL_HANDLER_OWNER === 'refunds')!;
  const roleId = handlerFn.Properties.Role['Fn::GetAtt'][0];
  const statements = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles ?? []).some((ref: any) => ref.Ref === roleId))
    .flatMap((r) => r.Properties.PolicyDocument.Statement);
  const principalTags = Object.fromEntries((resources[roleId].Properties.Tags ?? []).map((tag: any) => [tag.Key, tag.Value]));
  const given = [...statements, { Effect: 'Allow', Action: 'lambda:*', Resource: '*' }];
  const arn = JSON.stringify({ 'Fn::GetAtt': [inboxId, 'Arn'] });
  expect(evaluateInvoke(given, invokeChecks(arn, tags, 'direct', principalTags))).toBe('explicitly denied');
});

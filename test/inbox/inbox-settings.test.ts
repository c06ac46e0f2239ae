import { INBOX_ENV } from '../../lambda/construct-contract';
import { inboxSettings } from '../../lambda/inbox/settings';

/** The inbox function's configuration: each bad variable is an error that names it, never its value. */

const good = {
  [INBOX_ENV.issuer]: 'https://id.example.com/',
  [INBOX_ENV.clientId]: 'client',
  [INBOX_ENV.origin]: 'https://abc.execute-api.us-east-1.amazonaws.com',
  [INBOX_ENV.handlers]: JSON.stringify([{ owner: 'refunds', table: 't', tools: [{ name: 'refund' }] }]),
  [INBOX_ENV.approvers]: JSON.stringify({ refunds: ['support'] }),
};

test('a good configuration, with its defaults', () => {
  expect(inboxSettings(good)).toEqual({
    issuer: 'https://id.example.com',
    clientId: 'client',
    audiences: ['client'],
    scopes: 'openid email profile',
    groupsClaim: 'cognito:groups',
    origin: 'https://abc.execute-api.us-east-1.amazonaws.com',
    handlers: [{ owner: 'refunds', table: 't', tools: [{ name: 'refund' }] }],
    approvers: { refunds: ['support'] },
  });
  expect(inboxSettings({ ...good, [INBOX_ENV.audience]: 'api://x' }).audiences).toEqual(['client', 'api://x']);
});

test.each([
  [INBOX_ENV.issuer, undefined, /needs TOOL_HANDLER_INBOX_ISSUER to be set/],
  [INBOX_ENV.issuer, 'not a url SECRET', /TOOL_HANDLER_INBOX_ISSUER must be a URL/],
  [INBOX_ENV.clientId, '', /needs TOOL_HANDLER_INBOX_CLIENT_ID to be set/],
  [INBOX_ENV.origin, 'https://abc.example.com/path', /TOOL_HANDLER_INBOX_ORIGIN must be an origin/],
  [INBOX_ENV.handlers, '[]', /TOOL_HANDLER_INBOX_HANDLERS must be a JSON array/],
  [INBOX_ENV.handlers, '[{"owner":"a#b","table":"t","tools":[]}]', /TOOL_HANDLER_INBOX_HANDLERS must be a JSON array/],
  [INBOX_ENV.handlers, '{SECRET', /TOOL_HANDLER_INBOX_HANDLERS must be JSON/],
  [INBOX_ENV.approvers, '{"refunds":"support"}', /TOOL_HANDLER_INBOX_APPROVERS must be a JSON object/],
  [INBOX_ENV.tokenEndpoint, 'nope SECRET', /TOOL_HANDLER_INBOX_TOKEN_ENDPOINT must be a URL/],
])('%s = %j is refused, naming the variable', (name, value, message) => {
  const env: Record<string, string | undefined> = { ...good, [name]: value };
  let thrown: unknown;
  try {
    inboxSettings(env);
  } catch (error) {
    thrown = error;
  }
  expect(String((thrown as Error)?.message)).toMatch(message);
  expect(String((thrown as Error)?.message)).not.toContain('SECRET');
});

/**
 * The Gateway interceptor's REAL bundle (dist/functions/gateway-interceptor, what the construct
 * deploys), run in a child node process as Lambda would, one warm container for a run of requests,
 * against a real OpenID issuer on 127.0.0.1 (oauth2-mock-server: discovery, JWKS, RS256 tokens) and
 * the local KMS (local/kms.ts) through the real `@aws-sdk/client-kms`. A valid token's tools/call
 * goes on with a proof the handler's own check (`callerFromProof`) accepts with the key's public
 * half: the token's `sub`, `iss` and the named claims only. Every forged token (expired, another
 * audience, another issuer, `alg: none`, tampered, HS256 keyed with the public key, a stranger's
 * key, none at all, not Bearer, not valid yet) is answered with a 401 in the Gateway's place and
 * never gets a proof, and no answer or log line repeats a token. A warm container reads the issuer
 * once; KMS signs only proofs.
 */
import * as path from 'node:path';
import { CALLER_PROOF_HEADER, callerFromProof, publicKeyOf } from '../../lambda/caller-proof';
import { ENV, INTERCEPTOR_ENV } from '../../lambda/construct-contract';
import { startKms, type LocalKms } from '../../local/kms';
import { invokeBundleWithOutput, type BundleRun, type Invocation } from '../support/bundle-child';
import { LOCAL_AWS_CREDENTIALS, LOCAL_AWS_ENV } from '../support/local-aws';
import { startIssuer, tampered, unsignedToken, type LocalIssuer } from './oauth-issuer';

const BUNDLE = path.join(__dirname, '..', '..', 'dist', 'functions', 'gateway-interceptor', 'index.js');
const TOOL = 'Tools___whoami';
const CLIENT = 'agent-client';
const AUDIENCE = 'api://tools';
const NAMED_CLAIMS = ['email', 'groups', 'tier', 'admin', 'profile'];

let issuer: LocalIssuer;
let kms: LocalKms;
let keyArn: string;

beforeAll(async () => {
  issuer = await startIssuer();
  kms = await startKms({ region: LOCAL_AWS_ENV.AWS_REGION, keys: new Map([[LOCAL_AWS_CREDENTIALS.accessKeyId, LOCAL_AWS_CREDENTIALS.secretAccessKey]]) });
  keyArn = kms.createKey();
});

afterAll(async () => {
  await issuer?.close();
  await kms?.close();
});

function interceptorEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    [INTERCEPTOR_ENV.callerDiscoveryUrl]: issuer.discoveryUrl,
    [INTERCEPTOR_ENV.callerAudiences]: JSON.stringify([AUDIENCE]),
    [INTERCEPTOR_ENV.callerClients]: JSON.stringify([CLIENT]),
    [INTERCEPTOR_ENV.callerClaims]: JSON.stringify(NAMED_CLAIMS),
    [ENV.callerKey]: keyArn,
    AWS_ENDPOINT_URL_KMS: kms.url,
    ...overrides,
  };
}

let nextId = 1;
function toolsCall(name: string, args: unknown) {
  return { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } };
}

/** An interceptor input, as AgentCore Gateway sends it with `passRequestHeaders`. */
function request(body: unknown, headers: Record<string, string>): Invocation {
  return {
    requestId: `req-${Math.random()}`,
    event: {
      interceptorInputVersion: '1.0',
      mcp: {
        rawGatewayRequest: { body: JSON.stringify(body) },
        gatewayRequest: { path: '/mcp', httpMethod: 'POST', headers: { Accept: 'application/json', 'Mcp-Session-Id': 's-1', ...headers }, body },
      },
    },
  };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const alice = { sub: 'alice', client_id: CLIENT, email: 'alice@example.com', groups: ['support', 'refunds'], tier: 3, admin: false, profile: { x: 1 }, name: 'Alice' };

function returned(run: BundleRun, i: number): any {
  const outcome = run.outcomes[i];
  if ('threw' in outcome) throw new Error(`step ${i} threw: ${JSON.stringify(outcome.threw)}`);
  return outcome.returned;
}

describe('one warm interceptor, many requests', () => {
  const forged: Array<[string, () => Promise<Record<string, string>>, RegExp]> = [
    ['signed by a key the issuer does not have', async () => bearer(issuer.signedByStranger({ sub: 'mallory', client_id: CLIENT })), /not signed by a key of the trusted issuer/],
    ['expired', async () => bearer(await issuer.token({ ...alice, exp: Math.floor(Date.now() / 1000) - 120 })), /the token has expired/],
    ['for another audience and client', async () => bearer(await issuer.token({ sub: 'alice', aud: 'other-api', client_id: 'other-client' })), /another audience/],
    ['from another issuer (signed by the right key)', async () => bearer(await issuer.token({ ...alice, iss: 'https://evil.example.com' })), /another issuer/],
    ['unsigned (alg: none)', async () => bearer(unsignedToken({ ...alice, iss: issuer.url, exp: Math.floor(Date.now() / 1000) + 600 })), /not signed with a public-key algorithm/],
    ['tampered (sub changed after signing)', async () => bearer(tampered(await issuer.token(alice), { sub: 'mallory' })), /signature is not valid/],
    ['HS256 keyed with the issuer\'s public key', async () => bearer(await issuer.hmacWithPublicKey({ sub: 'mallory', client_id: CLIENT })), /not signed with a public-key algorithm/],
    ['missing', async () => ({}), /no `Authorization: Bearer <token>` header/],
    ['not a bearer token', async () => ({ Authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` }), /no `Authorization: Bearer <token>` header/],
    ['not valid yet (nbf)', async () => bearer(await issuer.token({ ...alice, nbf: Math.floor(Date.now() / 1000) + 600 })), /not valid yet/],
    ['without a subject', async () => bearer(await issuer.token({ client_id: CLIENT })), /no `sub` claim/],
  ];

  let run: BundleRun;
  let steps: Invocation[];
  let tokens: string[];
  const args = { orderId: 'o-1', lines: [{ sku: 'a', qty: 2 }] };
  const N_FORGED = forged.length;

  beforeAll(async () => {
    const forgedHeaders = await Promise.all(forged.map(([, headers]) => headers()));
    const valid = await issuer.token(alice);
    const byAudience = await issuer.token({ sub: 'bob', aud: ['other-api', AUDIENCE] });
    const bigGroups = await issuer.token({ ...alice, groups: Array.from({ length: 60 }, (_, i) => `SECRET-GROUP-${i}-${'x'.repeat(20)}`) });
    steps = [
      request(toolsCall(TOOL, args), bearer(valid)),
      ...forgedHeaders.map((headers) => request(toolsCall(TOOL, args), headers)),
      request({ jsonrpc: '2.0', id: 'list-1', method: 'tools/list' }, bearer(byAudience)),
      request(toolsCall('Tools___strict', { n: 1 }), { authorization: `bearer ${byAudience}` }),
      request(toolsCall(TOOL, args), bearer(bigGroups)),
      request([toolsCall(TOOL, args), { jsonrpc: '2.0', id: 9, method: 'tools/list' }], bearer(valid)),
      request({ jsonrpc: '2.0', id: 'list-2', method: 'tools/list' }, {}),
    ];
    tokens = [valid, byAudience, bigGroups, ...forgedHeaders.map((h) => Object.values(h)[0] ?? '').filter(Boolean)];
    run = await invokeBundleWithOutput(BUNDLE, interceptorEnv(), steps);
  }, 60_000);

  const bodyOf = (i: number) => ((steps[i].event as any).mcp.gatewayRequest.body);

  test('a valid token: the tools/call goes on unchanged, with a proof the handler accepts: sub, iss and the named claims only', () => {
    const output = returned(run, 0);
    expect(output.interceptorOutputVersion).toBe('1.0');
    expect(output.mcp.transformedGatewayResponse).toBeUndefined();
    const { body, headers } = output.mcp.transformedGatewayRequest;
    expect(body).toEqual(bodyOf(0));
    expect(Object.keys(headers)).toEqual([CALLER_PROOF_HEADER]);
    const proof = headers[CALLER_PROOF_HEADER];
    expect(Buffer.byteLength(proof)).toBeLessThanOrEqual(1536);
    const publicKey = publicKeyOf(kms.publicKeyDer(keyArn));
    expect(callerFromProof(proof, { tool: TOOL, args, publicKey })).toEqual({
      id: 'alice',
      kind: 'user',
      source: 'agentcore',
      verified: true,
      issuer: issuer.url,
      // `profile` is named but an object; `name` is not named.
      claims: { email: 'alice@example.com', groups: ['support', 'refunds'], tier: 3, admin: false },
    });
    // Bound to the call: other args or another tool are not proven.
    expect(callerFromProof(proof, { tool: TOOL, args: { ...args, orderId: 'o-2' }, publicKey })).toBeUndefined();
    expect(callerFromProof(proof, { tool: 'Tools___strict', args, publicKey })).toBeUndefined();
  });

  test.each(forged.map(([label, , reason], i) => [label, i + 1, reason] as const))(
    'a token %s: a 401 in the Gateway\'s place, naming why, and no proof',
    (_label, i, reason) => {
      const output = returned(run, i);
      expect(output.mcp.transformedGatewayRequest).toBeUndefined();
      expect(output.mcp.transformedGatewayResponse).toEqual({
        statusCode: 401,
        body: { jsonrpc: '2.0', id: bodyOf(i).id, error: { code: -32001, message: expect.stringMatching(reason) } },
      });
      expect(JSON.stringify(output)).not.toMatch(/mallory|alice/);
    },
  );

  test('an access token accepted by its audience (no client_id), a lower-case header and scheme: tools/list passes with no header, tools/call gets a proof', () => {
    const list = returned(run, N_FORGED + 1);
    expect(list.mcp).toEqual({ transformedGatewayRequest: { body: bodyOf(N_FORGED + 1) } });
    const call = returned(run, N_FORGED + 2).mcp.transformedGatewayRequest;
    const caller = callerFromProof(call.headers[CALLER_PROOF_HEADER], { tool: 'Tools___strict', args: { n: 1 }, publicKey: publicKeyOf(kms.publicKeyDer(keyArn)) });
    expect(caller).toEqual({ id: 'bob', kind: 'user', source: 'agentcore', verified: true, issuer: issuer.url });
  });

  test('claims too large for the proof: a 400 naming the claims, never their values', () => {
    const output = returned(run, N_FORGED + 3);
    expect(output.mcp.transformedGatewayRequest).toBeUndefined();
    const { statusCode, body } = output.mcp.transformedGatewayResponse;
    expect(statusCode).toBe(400);
    expect(body.error.code).toBe(-32002);
    expect(body.error.message).toMatch(/over the 1536 the Gateway can hand the tool: the claims it carries \(email, groups, tier, admin\) are too many or too large/);
    expect(JSON.stringify(output)).not.toContain('SECRET-GROUP');
  });

  test('a batch holding a tools/call is refused (one proof covers one call); a request without a token even for tools/list is a 401', () => {
    expect(returned(run, N_FORGED + 4).mcp.transformedGatewayResponse).toMatchObject({ statusCode: 400, body: { id: null, error: { message: expect.stringMatching(/batch/) } } });
    expect(returned(run, N_FORGED + 5).mcp.transformedGatewayResponse).toMatchObject({ statusCode: 401, body: { id: 'list-2' } });
  });

  test('warm: the issuer was read once (discovery and keys); KMS signed only the two proofs', () => {
    expect(issuer.requests()).toBe(2);
    expect(kms.requests.map((r) => `${r.operation}:${r.ok}`)).toEqual(['Sign:true', 'Sign:true']);
  });

  test('no output and no log line repeats a token', () => {
    const seen = [JSON.stringify(run.outcomes), run.stdout, run.stderr].join('\n');
    for (const token of tokens) {
      const raw = token.replace(/^(Bearer|Basic) /, '');
      for (const part of raw.split('.').filter((p) => p.length > 10)) expect(seen).not.toContain(part);
    }
    // The refusals are logged, with their reasons.
    expect(run.stdout.split('\n').filter((line) => line.includes('gateway request refused'))).toHaveLength(N_FORGED + 3);
  });
});

test('an issuer that cannot be reached: a 503 saying so, and no proof', async () => {
  const run = await invokeBundleWithOutput(BUNDLE, interceptorEnv({ [INTERCEPTOR_ENV.callerDiscoveryUrl]: 'http://127.0.0.1:9/.well-known/openid-configuration' }), [
    request(toolsCall(TOOL, {}), bearer(await issuer.token(alice))),
  ]);
  expect(returned(run, 0).mcp).toEqual({
    transformedGatewayResponse: {
      statusCode: 503,
      body: { jsonrpc: '2.0', id: expect.any(Number), error: { code: -32003, message: expect.stringMatching(/identity provider could not be reached: the discovery document could not be read/) } },
    },
  });
});

test('a misconfigured interceptor fails at start, naming the variable', async () => {
  await expect(invokeBundleWithOutput(BUNDLE, interceptorEnv({ [INTERCEPTOR_ENV.callerAudiences]: '', [INTERCEPTOR_ENV.callerClients]: 'not json' }), [request({}, {})])).rejects.toThrow(
    /TOOL_HANDLER_CALLER_CLIENTS must be a JSON array of non-empty strings/,
  );
});

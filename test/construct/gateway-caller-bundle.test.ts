/**
 * Who asked, end to end through the REAL bundles of a stack with `addToGateway(gateway,
 * { callerIdentity })`: the interceptor bundle the construct deploys verifies a token of a real
 * OpenID issuer on 127.0.0.1 and signs a proof with the local KMS; the Gateway hands the proof to the
 * target as AWS documents (`clientContext.custom.bedrockAgentCorePropagatedHeaders`); the handler
 * bundle of the fixture (test/fixtures/caller-tools.ts) checks it with the key's public half and
 * the tool sees the token's `sub`. Then the attacks of anyone who may invoke the handler directly:
 * every `bedrockAgentCore*` key and a propagated header set by hand (random text, a proof signed by
 * another key, a real proof replayed for other args or another tool, an expired one) give no
 * caller, and the tool that requires one answers `CallerRequired`. A warm handler reads the public
 * key once.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as agentcore from 'aws-cdk-lib/aws-bedrockagentcore';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { argsDigest, CALLER_PROOF_HEADER, CALLER_PROOF_LIFETIME_S, proofOf, statementPayload, type CallerStatement } from '../../lambda/caller-proof';
import { ENV } from '../../lambda/construct-contract';
import { startKms, type LocalKms } from '../../local/kms';
import { CallerIdentity, ToolHandler } from '../../lib';
import { invokeBundleWithOutput, sdkOnlyNodePath, synthesizedFunction, type BundleRun, type Invocation, type SynthesizedFunction } from '../support/bundle-child';
import { createTestTable } from '../support/dynamo';
import { LOCAL_AWS_CREDENTIALS, LOCAL_AWS_ENV } from '../support/local-aws';
import { startIssuer, type LocalIssuer } from './oauth-issuer';

const ENTRY = path.join(__dirname, '..', 'fixtures', 'caller-tools.ts');
const CLIENT = 'agent-client';
const WHOAMI = 'Tools___whoami';
const STRICT = 'Tools___strict';

let issuer: LocalIssuer;
let kms: LocalKms;
let keyArn: string;
let handler: SynthesizedFunction;
let interceptor: SynthesizedFunction;
let handlerEnv: Record<string, string>;
let interceptorEnv: Record<string, string>;
const nodePath = sdkOnlyNodePath();

/** The environment the construct set, without the values only CloudFormation resolves (replaced below). */
const strings = (env: Record<string, unknown>) => Object.fromEntries(Object.entries(env).filter(([, value]) => typeof value === 'string')) as Record<string, string>;

beforeAll(async () => {
  issuer = await startIssuer();
  kms = await startKms({ region: LOCAL_AWS_ENV.AWS_REGION, keys: new Map([[LOCAL_AWS_CREDENTIALS.accessKeyId, LOCAL_AWS_CREDENTIALS.secretAccessKey]]) });
  keyArn = kms.createKey();

  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'caller-bundle-'));
  const app = new App({ outdir });
  const stack = new Stack(app, 'Callers', { env: { account: '123456789012', region: 'us-east-1' } });
  const gateway = new agentcore.Gateway(stack, 'Gateway', { gatewayName: 'agents' });
  const tools = new ToolHandler(stack, 'Tools', { entry: ENTRY, tools: ['whoami', 'strict'] });
  tools.addToGateway(gateway, {
    gatewayTargetName: 'Tools',
    callerIdentity: CallerIdentity.jwt({ discoveryUrl: issuer.discoveryUrl, clients: [CLIENT], claims: ['email'] }),
  });
  const template = Template.fromStack(stack);
  handler = synthesizedFunction(template, outdir, tools.lambdaFunction);
  interceptor = synthesizedFunction(template, outdir, gateway.node.findChild('CdkToolHandlerCallerProofs').node.findChild('Interceptor') as IFunction);

  const table = await createTestTable();
  const local = { [ENV.callerKey]: keyArn, AWS_ENDPOINT_URL_KMS: kms.url };
  interceptorEnv = { ...strings(interceptor.env), ...local };
  handlerEnv = { ...strings(handler.env), ...local, [ENV.approvalsTable]: table.tableName, [ENV.approvalsEngine]: 'engine' };
}, 120_000);

afterAll(async () => {
  await issuer?.close();
  await kms?.close();
});

/** What the interceptor does with a tools/call carrying `token`: its output. */
async function intercept(token: string, name: string, args: unknown): Promise<any> {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
  const run = await invokeBundleWithOutput(
    interceptor.bundle,
    interceptorEnv,
    [{ requestId: 'i-1', event: { interceptorInputVersion: '1.0', mcp: { gatewayRequest: { path: '/mcp', httpMethod: 'POST', headers: { Authorization: `Bearer ${token}` }, body } } } }],
    nodePath,
  );
  return (run.outcomes[0] as { returned: any }).returned;
}

/** The Gateway's invocation of the target: the args as the event; the tool, the session and the allowlisted headers in the client context. */
function gatewayInvocation(name: string, args: unknown, custom: Record<string, string> = {}): Invocation {
  return { requestId: `req-${Math.random()}`, event: args, custom: { bedrockAgentCoreToolName: name, bedrockAgentCoreSessionId: 'session-1', ...custom } };
}

const propagated = (proof: string) => ({ bedrockAgentCorePropagatedHeaders: JSON.stringify({ [CALLER_PROOF_HEADER]: proof }) });

function replies(run: BundleRun): any[] {
  return run.outcomes.map((outcome, i) => {
    if ('threw' in outcome) throw new Error(`invocation ${i} threw: ${JSON.stringify(outcome.threw)}`);
    return outcome.returned;
  });
}

test('interceptor → Gateway context → handler: the tool sees the token\'s sub, issuer and named claim; a warm handler reads the key once', async () => {
  const token = await issuer.token({ sub: 'alice', client_id: CLIENT, email: 'alice@example.com', groups: ['not-named'] });
  const whoamiProof = (await intercept(token, WHOAMI, { note: 'hi' })).mcp.transformedGatewayRequest.headers[CALLER_PROOF_HEADER];
  const strictProof = (await intercept(token, STRICT, { orderId: 'o-1' })).mcp.transformedGatewayRequest.headers[CALLER_PROOF_HEADER];
  const before = kms.requests.length;
  const run = await invokeBundleWithOutput(
    handler.bundle,
    handlerEnv,
    [gatewayInvocation(WHOAMI, { note: 'hi' }, propagated(whoamiProof)), gatewayInvocation(STRICT, { orderId: 'o-1' }, propagated(strictProof))],
    nodePath,
  );
  const [whoami, strict] = replies(run);
  expect(whoami).toMatchObject({
    status: 'ok',
    tool: 'whoami',
    result: { id: 'alice', kind: 'user', source: 'agentcore', verified: true, issuer: issuer.url, claims: { email: 'alice@example.com' } },
  });
  expect(Object.keys(whoami.result).sort()).toEqual(['claims', 'id', 'issuer', 'kind', 'source', 'verified']);
  expect(strict).toMatchObject({ status: 'ok', result: { orderId: 'o-1', for: 'alice' } });
  expect(kms.requests.slice(before).map((r) => r.operation)).toEqual(['GetPublicKey']);
});

test('two callers in one session with the same args never share a call: each runs for itself, a repeat is its own caller\'s', async () => {
  const args = { orderId: 'o-shared' };
  const proofFor = async (sub: string) => (await intercept(await issuer.token({ sub, client_id: CLIENT }), STRICT, args)).mcp.transformedGatewayRequest.headers[CALLER_PROOF_HEADER];
  const alice = await proofFor('alice');
  const bob = await proofFor('bob');
  const run = await invokeBundleWithOutput(
    handler.bundle,
    handlerEnv,
    [gatewayInvocation(STRICT, args, propagated(alice)), gatewayInvocation(STRICT, args, propagated(bob)), gatewayInvocation(STRICT, args, propagated(alice))],
    nodePath,
  );
  const [first, second, again] = replies(run);
  expect(first).toMatchObject({ status: 'ok', result: { for: 'alice' } });
  expect(second).toMatchObject({ status: 'ok', result: { for: 'bob' } });
  expect(second.run_id).not.toEqual(first.run_id);
  expect(again).toMatchObject({ result: { for: 'alice' }, run_id: first.run_id, call_id: first.call_id });
});

test("the verifier stays out of the handler's bundle: jose is in the interceptor's only", () => {
  const marker = /ERR_JWKS_NO_MATCHING_KEY|jose\/v6/;
  expect(fs.readFileSync(interceptor.bundle, 'utf8')).toMatch(marker);
  expect(fs.readFileSync(handler.bundle, 'utf8')).not.toMatch(marker);
});

describe('forged Gateway contexts, invoking the handler directly: no caller', () => {
  const whoami = { name: WHOAMI, args: { note: 'x' } };
  const strict = { name: STRICT, args: { orderId: 'o-9' } };
  let real: { whoami: string; strict: string };
  let run: BundleRun;
  let cases: Array<[string, { name: string; args: unknown }]>;

  /** A statement of mallory for the call, signed through KMS with `key`. */
  async function signed(key: string, call: { name: string; args: unknown }, exp = Math.floor(Date.now() / 1000) + CALLER_PROOF_LIFETIME_S): Promise<string> {
    const statement: CallerStatement = { v: 1, iss: issuer.url, sub: 'mallory', tool: call.name, args: argsDigest(call.args), exp };
    const payload = statementPayload(statement);
    const client = new KMSClient({ region: LOCAL_AWS_ENV.AWS_REGION, endpoint: kms.url, credentials: LOCAL_AWS_CREDENTIALS });
    const { Signature } = await client.send(new SignCommand({ KeyId: key, Message: Buffer.from(payload), MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }));
    client.destroy();
    return proofOf(payload, Signature!);
  }

  beforeAll(async () => {
    const token = await issuer.token({ sub: 'alice', client_id: CLIENT, email: 'alice@example.com' });
    const proofFor = async (call: { name: string; args: unknown }) => (await intercept(token, call.name, call.args)).mcp.transformedGatewayRequest.headers[CALLER_PROOF_HEADER];
    real = { whoami: await proofFor({ name: WHOAMI, args: { note: 'mine' } }), strict: await proofFor(strict) };
    const otherKey = kms.createKey();
    const everyKey = {
      bedrockAgentCoreUserId: 'admin',
      bedrockAgentCoreCaller: JSON.stringify({ id: 'admin', verified: true }),
      bedrockAgentCoreIdentity: 'admin',
      bedrockAgentCoreClaims: JSON.stringify({ sub: 'admin' }),
      bedrockAgentCoreGatewayId: 'agents-abc',
      bedrockAgentCoreTargetId: 'TARGET1',
      bedrockAgentCoreMessageVersion: '1.0',
      bedrockAgentCoreAwsRequestId: 'r-1',
      bedrockAgentCoreMcpMessageId: '1',
    };
    const attacks: Array<[string, { name: string; args: unknown }, Record<string, string>]> = [];
    for (const call of [whoami, strict]) {
      attacks.push(
        ['every bedrockAgentCore* key set by hand, the proof header random text', call, { ...everyKey, ...propagated('not-a-proof.at-all') }],
        ['a proof for this very call signed by another key', call, propagated(await signed(otherKey, call))],
        ['an expired proof for this very call signed by the right key', call, propagated(await signed(keyArn, call, Math.floor(Date.now() / 1000) - 3600))],
        ['claims and a token in headers of other names', call, { bedrockAgentCorePropagatedHeaders: JSON.stringify({ 'x-cdk-tool-handler-caller-claims': '{"sub":"admin"}', authorization: `Bearer ${token}` }) }],
      );
    }
    attacks.push(
      ["alice's real proof replayed for other args of the same tool", { name: WHOAMI, args: { note: 'theirs' } }, propagated(real.whoami)],
      ["alice's real proof replayed for other args of a tool that requires a caller", { name: STRICT, args: { orderId: 'o-10' } }, propagated(real.strict)],
      ["alice's real proof replayed for another tool with the same args", { name: WHOAMI, args: strict.args }, propagated(real.strict)],
    );
    cases = attacks.map(([label, call]) => [label, call]);
    run = await invokeBundleWithOutput(handler.bundle, handlerEnv, attacks.map(([, call, custom]) => gatewayInvocation(call.name, call.args, custom)), nodePath);
  }, 60_000);

  test('none of them gives a caller: whoami answers null, strict answers CallerRequired, nothing throws', () => {
    const answers = replies(run);
    expect(answers).toHaveLength(cases.length);
    cases.forEach(([label, call], i) => {
      const expected =
        call.name === STRICT
          ? expect.objectContaining({ status: 'error', error: expect.objectContaining({ type: 'CallerRequired', retryable: false }) })
          : expect.objectContaining({ status: 'ok', result: null });
      expect([label, call.name, answers[i]]).toEqual([label, call.name, expected]);
    });
  });

  test("alice's real proofs are good for their own calls (so the replays above fail for the call, not the proof)", async () => {
    const own = await invokeBundleWithOutput(
      handler.bundle,
      handlerEnv,
      [gatewayInvocation(WHOAMI, { note: 'mine' }, propagated(real.whoami)), gatewayInvocation(strict.name, strict.args, propagated(real.strict))],
      nodePath,
    );
    expect(replies(own)).toEqual([
      expect.objectContaining({ status: 'ok', result: expect.objectContaining({ id: 'alice', verified: true }) }),
      expect.objectContaining({ status: 'ok', result: { orderId: 'o-9', for: 'alice' } }),
    ]);
  });
});

/**
 * What the local function-URL stand-in (local/function-url.ts, the one that `cdk-tool-handler local`
 * and the CLI's tests both use) must do: refuse what the real URL refuses and shape events as the
 * real URL does.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { signedFetch } from '../../approvals-client/signed-fetch';
import type { FunctionUrlEvent, FunctionUrlHost, FunctionUrlHostOptions } from '../../local/function-url';


export function functionUrlContract(
  startFunctionUrlHost: (options: FunctionUrlHostOptions) => Promise<FunctionUrlHost>,
  /** The response header that says why a request was refused. */
  reasonHeader: string,
): void {
  const KEY = 'AKIDHOSTTEST0000';
  const SECRET = 'host-secret';
  const ARN = 'arn:aws:sts::444455556666:assumed-role/Approver/alice';

  let host: FunctionUrlHost;
  let reply: (event: FunctionUrlEvent) => Promise<unknown>;

  beforeAll(async () => {
    host = await startFunctionUrlHost({
      region: 'eu-west-1',
      credentials: {
        [KEY]: { secretAccessKey: SECRET, userArn: ARN, userId: 'AROAEXAMPLE:alice' },
        AKIDTEMPORARY000: { secretAccessKey: 'temp-secret', userArn: ARN, sessionToken: 'the-token' },
      },
      handler: (event) => reply(event),
    });
  });
  beforeEach(() => {
    reply = async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
  });
  afterAll(() => host.close());

  const creds = (accessKeyId = KEY, secretAccessKey = SECRET, sessionToken?: string) => async () => ({ accessKeyId, secretAccessKey, sessionToken });
  const send = (options: { method?: 'GET' | 'POST'; path?: string; body?: unknown; region?: string; credentials?: ReturnType<typeof creds> } = {}) =>
    signedFetch({
      method: options.method ?? 'GET',
      url: new URL(options.path ?? 'approvals', host.url),
      region: options.region ?? 'eu-west-1',
      credentials: options.credentials ?? creds(),
      body: options.body,
    });

  test('a signed request becomes a payload 2.0 event with the IAM authorizer context', async () => {
    const url = new URL('approvals/apr_1/decision', host.url);
    url.searchParams.set('a', 'x y+z');
    url.searchParams.set('b', '1');
    const res = await signedFetch({ method: 'POST', url, region: 'eu-west-1', credentials: creds(), body: { approved: true } });
    expect(res).toEqual({ status: 200, text: '{"ok":true}' });
    const event = host.events.at(-1)!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/approvals/apr_1/decision',
      rawQueryString: 'a=x%20y%2Bz&b=1',
      queryStringParameters: { a: 'x y+z', b: '1' },
      body: '{"approved":true}',
      isBase64Encoded: false,
      requestContext: {
        accountId: '123456789012',
        authorizer: {
          iam: {
            accessKey: KEY,
            accountId: '444455556666',
            callerId: 'AROAEXAMPLE:alice',
            cognitoIdentity: null,
            principalOrgId: null,
            userArn: ARN,
            userId: 'AROAEXAMPLE:alice',
          },
        },
        domainName: '127.0.0.1',
        http: { method: 'POST', path: '/approvals/apr_1/decision', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' },
        routeKey: '$default',
        stage: '$default',
      },
    });
    expect(event.headers['content-type']).toBe('application/json');
    expect(event.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDHOSTTEST0000\/\d{8}\/eu-west-1\/lambda\/aws4_request/);
    expect(event.requestContext.time).toMatch(/^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
    expect(Math.abs(event.requestContext.timeEpoch - Date.now())).toBeLessThan(10_000);
    const get = await send();
    expect(get.status).toBe(200);
    expect(host.events.at(-1)).not.toHaveProperty('body');
    expect(host.events.at(-1)).not.toHaveProperty('queryStringParameters');
  });

  test.each([
    ['a wrong secret', { credentials: creds(KEY, 'wrong') }, 'signature does not match'],
    ['an unknown access key', { credentials: creds('AKIDNOBODY000000', SECRET) }, 'unknown access key'],
    ['another region', { region: 'us-east-1' }, 'not eu-west-1'],
    ['a missing session token', { credentials: creds('AKIDTEMPORARY000', 'temp-secret') }, 'session token'],
  ])('%s is 403 {"Message":"Forbidden"}, and the handler is not called', async (_, options, reason) => {
    const before = host.events.length;
    const res = await send(options);
    expect(res).toEqual({ status: 403, text: '{"Message":"Forbidden"}' });
    expect(host.events.length).toBe(before);
    const again = await fetchWithReason(options);
    expect(again).toContain(reason);
  });

  test('temporary credentials with their session token pass', async () => {
    expect((await send({ credentials: creds('AKIDTEMPORARY000', 'temp-secret', 'the-token') })).status).toBe(200);
  });

  test('a body changed after signing is refused', async () => {
    const { headers, url } = await signedRequest('{"approved":true}');
    const res = await fetch(url, { method: 'POST', headers, body: '{"approved":false}' });
    expect(res.status).toBe(403);
    expect(res.headers.get(reasonHeader)).toBe('x-amz-content-sha256 does not match the body');
  });

  test('an unsigned request is refused', async () => {
    const res = await fetch(new URL('approvals', host.url));
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('{"Message":"Forbidden"}');
  });

  test('a result without statusCode is sent as 200 JSON; a throwing handler is 502', async () => {
    reply = async () => ({ hello: 'world' });
    expect(await send()).toEqual({ status: 200, text: '{"hello":"world"}' });
    reply = async () => {
      throw new Error('boom');
    };
    expect(await send()).toEqual({ status: 502, text: '{"Message":"Internal Server Error"}' });
  });

  async function fetchWithReason(options: { credentials?: ReturnType<typeof creds>; region?: string }): Promise<string> {
    const url = new URL('approvals', host.url);
    const signer = new SignatureV4({ service: 'lambda', region: options.region ?? 'eu-west-1', credentials: options.credentials ?? creds(), sha256: Sha256 });
    const signed = await signer.sign(
      new HttpRequest({ method: 'GET', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: url.pathname, headers: { host: url.host } }),
    );
    const { host: _h, ...headers } = signed.headers;
    const res = await fetch(url, { headers });
    return res.headers.get(reasonHeader) ?? '';
  }

  async function signedRequest(body: string): Promise<{ url: URL; headers: Record<string, string> }> {
    const url = new URL('approvals/apr_1/decision', host.url);
    const signer = new SignatureV4({ service: 'lambda', region: 'eu-west-1', credentials: creds(), sha256: Sha256 });
    const signed = await signer.sign(
      new HttpRequest({
        method: 'POST',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        headers: { host: url.host, 'content-type': 'application/json' },
        body,
      }),
    );
    const { host: _h, ...headers } = signed.headers;
    return { url, headers };
  }
}

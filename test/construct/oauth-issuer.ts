/**
 * An OpenID Connect issuer on 127.0.0.1 for the tests: `oauth2-mock-server`'s discovery document,
 * JWKS and RS256 tokens signed by a key it made, with the claims a test gives. The package is ES
 * modules only, which jest's module system cannot load: it is bundled once into CommonJS by esbuild
 * and required from there. Every HTTP request the issuer serves is counted (a warm interceptor must
 * make none).
 */
import { createHmac, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { listenOnLoopback } from '../../local/loopback-server';

const REPO = path.join(__dirname, '..', '..');

export interface LocalIssuer {
  /** `http://127.0.0.1:<port>`: the tokens' `iss`. */
  readonly url: string;
  /** `<url>/.well-known/openid-configuration`. */
  readonly discoveryUrl: string;
  /** HTTP requests served so far (discovery document and JWKS). */
  requests(): number;
  /** A token signed by the issuer's key, valid for an hour, with `claims` set over the defaults (`iss`, `iat`, `nbf`, `exp`). */
  token(claims: Record<string, unknown>, options?: { expiresIn?: number }): Promise<string>;
  /** A token of the issuer's shape signed with HS256, keyed with the issuer's public key (PEM): the algorithm-confusion attack. */
  hmacWithPublicKey(claims: Record<string, unknown>): Promise<string>;
  /** A well-formed RS256 token signed by a key the issuer does not have (its `kid` is not in the JWKS). */
  signedByStranger(claims: Record<string, unknown>): string;
  /**
   * The claims of the tokens its token endpoint gives from now on (a sign-in through its authorize
   * endpoint, which redirects at once, as with a user who is already signed in).
   */
  signInAs(claims: Record<string, unknown>): void;
  close(): Promise<void>;
}

let modulePromise: Promise<any> | undefined;

/** oauth2-mock-server as CommonJS (bundled once per test file). */
function mockServer(): Promise<any> {
  modulePromise ??= (async () => {
    const outfile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'oauth2-mock-')), 'index.js');
    await build({
      stdin: { contents: "export { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server';", resolveDir: REPO, loader: 'js' },
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      mainFields: ['module', 'main'],
      logLevel: 'warning',
    });
    return require(outfile);
  })();
  return modulePromise;
}

export async function startIssuer(): Promise<LocalIssuer> {
  const { OAuth2Issuer, OAuth2Service } = await mockServer();
  const issuer = new OAuth2Issuer();
  const jwk = await issuer.keys.generate('RS256');
  const service = new OAuth2Service(issuer);
  const handle = service.requestHandler;
  let signedIn: Record<string, unknown> = {};
  service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => Object.assign(token.payload, signedIn));
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    handle(req, res);
  });
  const listening = await listenOnLoopback(server);
  issuer.url = listening.url;
  const publicPem = createPublicKey({ key: { kty: jwk.kty, n: jwk.n, e: jwk.e }, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = () => Math.floor(Date.now() / 1000);
  const defaults = () => ({ iss: listening.url, iat: now(), nbf: now(), exp: now() + 3600 });
  return {
    url: listening.url,
    discoveryUrl: `${listening.url}/.well-known/openid-configuration`,
    requests: () => requests,
    token: (claims, options = {}) =>
      issuer.buildToken({
        expiresIn: options.expiresIn ?? 3600,
        scopesOrTransform: (_header: unknown, payload: Record<string, unknown>) => Object.assign(payload, claims),
      }),
    async hmacWithPublicKey(claims) {
      const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: jwk.kid })}.${b64({ ...defaults(), ...claims })}`;
      return `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
    },
    signedByStranger(claims) {
      const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'not-the-issuers' })}.${b64({ ...defaults(), ...claims })}`;
      return `${input}.${sign('sha256', Buffer.from(input), stranger).toString('base64url')}`;
    },
    signInAs(claims) {
      signedIn = claims;
    },
    close: () => listening.close(),
  };
}

/** `alg: none`: the token's claims with no signature at all. */
export function unsignedToken(claims: Record<string, unknown>): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
}

/** A valid token with one claim of its payload changed after signing (the signature no longer covers it). */
export function tampered(token: string, claims: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const changed = { ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), ...claims };
  return `${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`;
}

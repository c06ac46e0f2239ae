/**
 * A local OpenID Connect issuer on 127.0.0.1 for the inbox of a local run: `oauth2-mock-server`
 * (discovery, JWKS, authorization code with PKCE, RS256 tokens), found at run time like dynalite
 * (the project installs it: `npm i -D oauth2-mock-server`). Its authorize endpoint signs in at
 * once, as the one local approver whose claims the run chooses. It is an ES module only, so it runs
 * in a worker thread of its own, which imports it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CliError } from '../console/errors';

export interface LocalOidcIssuer {
  /** `http://127.0.0.1:<port>`: the tokens' `iss`. */
  readonly url: string;
  /** The claims of the tokens it gives from now on (who signs in next). */
  signInAs(claims: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

const ISSUER_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { pathToFileURL } = require('node:url');
(async () => {
  const { OAuth2Issuer, OAuth2Service } = await import(pathToFileURL(workerData.entry).href);
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate('RS256');
  const service = new OAuth2Service(issuer);
  let claims = workerData.claims;
  service.on('beforeTokenSigning', (token) => Object.assign(token.payload, claims));
  let port = 0;
  const server = http.createServer((req, res) => {
    const host = String(req.headers.host || '');
    if (host !== '127.0.0.1:' + port && host !== 'localhost:' + port) { res.writeHead(403, { connection: 'close' }); res.end(); return; }
    service.requestHandler(req, res);
  });
  server.listen(0, '127.0.0.1', () => {
    port = server.address().port;
    issuer.url = 'http://127.0.0.1:' + port;
    parentPort.postMessage({ type: 'ready', url: issuer.url });
  });
  parentPort.on('message', (message) => {
    if (message.type === 'claims') { claims = message.claims; parentPort.postMessage({ type: 'claims' }); }
    if (message.type === 'close') { server.closeAllConnections(); server.close(() => parentPort.postMessage({ type: 'closed' })); }
  });
})().catch((error) => parentPort.postMessage({ type: 'error', message: String(error && error.message || error) }));
`;

/** `oauth2-mock-server`'s entry, from this package's installation or the current project's. */
function issuerEntry(): string {
  for (const start of [__dirname, process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const entry = path.join(dir, 'node_modules', 'oauth2-mock-server', 'dist', 'index.mjs');
      if (fs.existsSync(entry)) return entry;
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new CliError('`cdk-tool-handler local` serves the approvals inbox with a local OpenID issuer, oauth2-mock-server, which is not installed here: run `npm i -D oauth2-mock-server@8`.');
}

export async function startLocalOidcIssuer(claims: Record<string, unknown>): Promise<LocalOidcIssuer> {
  const worker = new Worker(ISSUER_SCRIPT, { eval: true, workerData: { entry: issuerEntry(), claims } });
  const next = (type: string) =>
    new Promise<any>((resolve, reject) => {
      const onMessage = (message: any) => {
        if (message.type === 'error') reject(new CliError(`The local OpenID issuer did not start: ${message.message}`));
        else if (message.type === type) {
          worker.off('message', onMessage);
          resolve(message);
        }
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const ready = await next('ready');
  return {
    url: ready.url,
    async signInAs(claimsNow) {
      const done = next('claims');
      worker.postMessage({ type: 'claims', claims: claimsNow });
      await done;
    },
    async close() {
      const closed = next('closed');
      worker.postMessage({ type: 'close' });
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      await worker.terminate();
    },
  };
}

/**
 * `inbox_page_bytes`: what the approvals inbox's page costs on its first load. The page is one HTML
 * document with its script and style inlined and nothing else fetched (its CSP allows no other
 * script, style, font or image), so its first load is the body of `GET /` as the package's REAL
 * inbox bundle (dist/functions/approvals-inbox, `npm run build:functions`) serves it, configured
 * as for Cognito (endpoints known at synth: no network call). The budget is 60 KB.
 */
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { INBOX_ENV } from '../lambda/construct-contract';
import { ROOT } from './lib/paths';

export interface InboxPage {
  /** Bytes of the page's first load (HTML with its inlined script and style). */
  readonly bytes: number;
  /** The same, gzip-compressed (what a browser receives when the front end compresses). */
  readonly gzipBytes: number;
}

export async function measureInboxPage(): Promise<InboxPage> {
  const pool = 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example01';
  const domain = 'https://inbox-example.auth.us-east-1.amazoncognito.com';
  const saved = { ...process.env };
  Object.assign(process.env, {
    [INBOX_ENV.issuer]: pool,
    [INBOX_ENV.clientId]: '1example23456789abcdefghij',
    [INBOX_ENV.origin]: 'https://abcdef1234.execute-api.us-east-1.amazonaws.com',
    [INBOX_ENV.handlers]: JSON.stringify([{ owner: 'refunds', table: 'approvals', tools: [{ name: 'refund', description: 'Refunds an order.' }] }]),
    [INBOX_ENV.approvers]: '{}',
    [INBOX_ENV.authorizationEndpoint]: `${domain}/oauth2/authorize`,
    [INBOX_ENV.tokenEndpoint]: `${domain}/oauth2/token`,
    AWS_REGION: 'us-east-1',
  });
  try {
    const { handler } = require(path.join(ROOT, 'dist', 'functions', 'approvals-inbox', 'index.js'));
    const answer = await handler({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/',
      rawQueryString: '',
      headers: { host: 'abcdef1234.execute-api.us-east-1.amazonaws.com' },
      requestContext: { http: { method: 'GET', path: '/' } },
      isBase64Encoded: false,
    });
    if (answer.statusCode !== 200) throw new Error(`the inbox answered GET / with ${answer.statusCode}: ${answer.body}`);
    const body = Buffer.from(answer.body, 'utf8');
    return { bytes: body.length, gzipBytes: gzipSync(body).length };
  } finally {
    process.env = saved;
  }
}

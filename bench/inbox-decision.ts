/**
 * `inbox_decision_round_trips` and `cli_decision_round_trips`: what one decision costs in DynamoDB
 * requests, made in the approvals inbox (a signed-in `POST /api/approvals/{id}/decision`, the one
 * request the page sends) and made as the CLI makes it (`POST /approvals/{id}/decision` to the
 * approvals API's function URL). Both through the package's REAL bundles (dist/functions,
 * `npm run build:functions`), loaded in this process, their DynamoDB client pointed at a proxy in
 * front of dynalite that counts the requests; the inbox's token comes from a local OIDC issuer.
 * The two must be equal: the inbox decides through the API's own routes and the same store.
 */
import * as path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, INBOX_ENV } from '../lambda/construct-contract';
import { callFingerprint } from '../lambda/ids';
import { DynamoApprovalStore } from '../lambda/stores/dynamo';
import { startIssuer } from '../test/construct/oauth-issuer';
import { approvalsTableInput, createActiveTable } from '../test/support/dynamo';
import { startFaultProxy } from '../test/support/fault-proxy';
import { functionUrlEvent } from '../test/support/function-url-event';
import { withDynalite } from './dynamo';
import { ROOT } from './lib/paths';
import { mean } from './lib/stats';

export interface DecisionRoundTrips {
  /** DynamoDB requests of one decision made in the inbox. */
  readonly inbox: number;
  /** DynamoDB requests of one decision made through the approvals API, as the CLI makes it. */
  readonly cli: number;
}

type Handler = (event: unknown) => Promise<{ statusCode?: number; body?: string }>;

const TABLE = 'bench-inbox';
const OWNER = 'refunds';
const ORIGIN = 'https://inbox.example.com';
const CLIENT = 'bench-inbox';

export async function measureDecisionRoundTrips(iterations: number): Promise<DecisionRoundTrips> {
  return withDynalite(async (endpoint) => {
    const proxy = await startFaultProxy({ target: endpoint, rates: {}, stallMs: 0, seed: 1 });
    const issuer = await startIssuer();
    const dynamo = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
    const saved = { ...process.env };
    const quiet = { log: console.log, error: console.error, write: process.stdout.write };
    try {
      await createActiveTable(dynamo, approvalsTableInput(TABLE));
      const store = new DynamoApprovalStore({ tableName: TABLE, client: DynamoDBDocumentClient.from(dynamo), owner: OWNER });
      Object.assign(process.env, {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'bench',
        AWS_SECRET_ACCESS_KEY: 'bench',
        AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
        [ENV.approvalsTable]: TABLE,
        [ENV.owner]: OWNER,
        [INBOX_ENV.issuer]: issuer.url,
        [INBOX_ENV.clientId]: CLIENT,
        [INBOX_ENV.origin]: ORIGIN,
        [INBOX_ENV.handlers]: JSON.stringify([{ owner: OWNER, table: TABLE, tools: [{ name: 'refund' }] }]),
        [INBOX_ENV.approvers]: '{}',
        [INBOX_ENV.groupsClaim]: 'groups',
      });
      const inbox = freshHandler('approvals-inbox');
      const api = freshHandler('approvals-api');
      // Their audit records would interleave with the bench's table.
      console.log = () => undefined;
      console.error = () => undefined;
      process.stdout.write = (() => true) as typeof process.stdout.write;
      const token = await issuer.token({ sub: 'bench-approver', aud: CLIENT });

      const seed = async (id: string) => {
        const args = { orderId: id };
        const fingerprint = callFingerprint('refund', args);
        await store.create({ approvalId: id, tool: 'refund', args, runId: `r-${id}`, callId: `c-${id}`, fingerprint });
        return fingerprint;
      };
      const counted = async (handler: Handler, event: unknown) => {
        const before = proxy.counts.requests;
        const answer = await handler(event);
        if (answer.statusCode !== 200) throw new Error(`the decision answered ${answer.statusCode}: ${answer.body}`);
        return proxy.counts.requests - before;
      };
      const samples = { inbox: [] as number[], cli: [] as number[] };
      for (let i = 0; i < iterations; i++) {
        const inInbox = `in${i}`;
        const body = { approved: true, fingerprint: await seed(inInbox) };
        const event: any = functionUrlEvent('POST', `/api/approvals/${inInbox}/decision`, { body, userArn: null });
        delete event.requestContext.authorizer;
        event.headers.authorization = `Bearer ${token}`;
        event.headers.origin = ORIGIN;
        samples.inbox.push(await counted(inbox, event));

        const byCli = `cli${i}`;
        const cliBody = { approved: true, fingerprint: await seed(byCli) };
        samples.cli.push(await counted(api, functionUrlEvent('POST', `/approvals/${byCli}/decision`, { body: cliBody })));
      }
      return { inbox: mean(samples.inbox), cli: mean(samples.cli) };
    } finally {
      console.log = quiet.log;
      console.error = quiet.error;
      process.stdout.write = quiet.write;
      process.env = saved;
      dynamo.destroy();
      await issuer.close();
      await proxy.close();
    }
  });
}

/** A package function's bundle loaded anew, so that it reads this environment (as a new container would), not another figure's. */
function freshHandler(name: string): Handler {
  const file = require.resolve(path.join(ROOT, 'dist', 'functions', name, 'index.js'));
  delete require.cache[file];
  return require(file).handler as Handler;
}

/**
 * The CLI's behaviour against an approvals API, whichever handler implements it: the same tests run
 * against the in-memory API (`cli-memory.test.ts`) and the real API function (`cli-api-function.test.ts`).
 * Requests go through `startFunctionUrlHost`, which checks the SigV4 signature as a function URL does.
 */
import type { ApprovalRecord } from '../../approvals-client/record';
import { startFunctionUrlHost, type FunctionUrlEvent, type FunctionUrlHost, type FunctionUrlHandler } from '../../local/function-url';
import { credentialsEnv, bareEnv, runCli, type RunOptions } from './harness';
import type { SeedInput } from './memory-approvals-api';

export interface ApiUnderTest {
  readonly handler: FunctionUrlHandler;
  /** Creates a pending approval as the engine would; returns its id. */
  seed(input: SeedInput): Promise<string>;
  /** Whether `seed` can create an already expired approval. */
  readonly canSeedExpired: boolean;
  close?(): Promise<void>;
}

type Interceptor = (event: FunctionUrlEvent, next: FunctionUrlHandler) => Promise<unknown>;

export const ALICE = { accessKeyId: 'AKIDALICE0000000', secretAccessKey: 'alice-secret', userArn: 'arn:aws:iam::111122223333:user/alice' };

export function describeCliContract(name: string, makeApi: () => Promise<ApiUnderTest>): void {
  describe(`approvals CLI against ${name}`, () => {
    let api: ApiUnderTest;
    let host: FunctionUrlHost;
    let intercept: Interceptor | undefined;
    const handlerErrors: unknown[] = [];

    beforeAll(async () => {
      api = await makeApi();
      host = await startFunctionUrlHost({
        credentials: { [ALICE.accessKeyId]: { secretAccessKey: ALICE.secretAccessKey, userArn: ALICE.userArn } },
        handler: (event) => (intercept ? intercept(event, api.handler) : api.handler(event)),
        onHandlerError: (error) => handlerErrors.push(error),
      });
    });
    afterEach(() => {
      intercept = undefined;
      expect(handlerErrors).toEqual([]);
    });
    afterAll(async () => {
      await host?.close();
      await api?.close?.();
    });

    const env = () => credentialsEnv(ALICE.accessKeyId, ALICE.secretAccessKey);
    const cli = (args: readonly string[], options: Partial<RunOptions> = {}) =>
      runCli(['approvals', ...args, '--url', host.url], { env: env(), ...options });
    const show = async (id: string): Promise<ApprovalRecord> => {
      const run = await cli(['show', id, '--json']);
      expect(run).toMatchObject({ code: 0 });
      return JSON.parse(run.stdout) as ApprovalRecord;
    };
    const posts = () => host.events.filter((e) => e.requestContext.http.method === 'POST');
    const seedOne = (tool = 'send_email', args: Record<string, unknown> = { to: 'bob@example.com', subject: 'Hi' }) =>
      api.seed({ tool, args });

    test('list says "No approvals." when there are none', async () => {
      const run = await cli(['list']);
      expect(run).toEqual({ code: 0, stdout: 'No approvals.\n', stderr: '' });
      const json = await cli(['list', '--json']);
      expect(JSON.parse(json.stdout)).toEqual({ approvals: [] });
    });

    test('list prints a table of id, tool, status, who asked, created and expires', async () => {
      const id = await seedOne('a_tool_with_a_rather_long_name_that_goes_on_and_on');
      const run = await cli(['list']);
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^ID\s+TOOL\s+STATUS\s+ASKED BY\s+CREATED\s+EXPIRES$/);
      const row = lines.find((l) => l.startsWith(id));
      expect(row).toMatch(/a_tool_with_a_rather_long_name_…\s+pending\s+-\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
      expect(row!.length).toBeLessThan(140);
      expect(lines[lines.length - 1]).toMatch(/^\d+ approvals?\.$/);
    });

    test('list --json pages through `next` and prints every record once', async () => {
      const tool = `paged_${Date.now()}`;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await api.seed({ tool, args: { i } }));
      const before = host.events.length;
      const run = await cli(['list', '--status', 'pending', '--page-size', '2', '--json']);
      expect(run.code).toBe(0);
      const { approvals } = JSON.parse(run.stdout) as { approvals: ApprovalRecord[] };
      expect(approvals.filter((r) => r.tool === tool).map((r) => r.approval_id).sort()).toEqual([...ids].sort());
      expect(new Set(approvals.map((r) => r.approval_id)).size).toBe(approvals.length);
      expect(approvals.every((r) => r.status === 'pending')).toBe(true);
      const gets = host.events.slice(before);
      expect(gets.length).toBeGreaterThanOrEqual(3);
      expect(gets[0].queryStringParameters).toEqual({ status: 'pending', limit: '2' });
      expect(gets[1].queryStringParameters?.next).toEqual(expect.any(String));
    });

    test('show prints tool, args as pretty JSON, run and call ids, status and expiry', async () => {
      const id = await api.seed({ tool: 'transfer', args: { amount: 10, to: { iban: 'DE00' } }, runId: 'run_show', callId: 'call_show' });
      const run = await cli(['show', id]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Approval:    ${id}\n`);
      expect(run.stdout).toContain('Tool:        transfer\n');
      expect(run.stdout).toContain('Status:      pending\n');
      expect(run.stdout).toContain('Run:         run_show\n');
      expect(run.stdout).toContain('Call:        call_show\n');
      expect(run.stdout).toMatch(/Expires: {5}\d{4}-\d\d-\d\dT/);
      expect(run.stdout).toContain('Args:\n  {\n    "amount": 10,\n    "to": {\n      "iban": "DE00"\n    }\n  }\n');
      const json = await show(id);
      expect(json).toMatchObject({ approval_id: id, tool: 'transfer', args: { amount: 10, to: { iban: 'DE00' } }, status: 'pending' });
    });

    test('approve --yes shows the approval, then decides with the fingerprint it read', async () => {
      const id = await seedOne();
      const { fingerprint } = await show(id);
      const run = await cli(['approve', id, '--yes']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Tool:        send_email');
      expect(run.stdout).toContain('"to": "bob@example.com"');
      expect(run.stdout).not.toContain('[y/N]');
      expect(run.stdout).toContain(`Approved ${id}, tool send_email as ${ALICE.userArn}.`);
      expect(JSON.parse(posts().at(-1)!.body!)).toEqual({ approved: true, fingerprint });
      expect(await show(id)).toMatchObject({ status: 'approved', decided_by: ALICE.userArn });
    });

    test('approve asks on a terminal and decides on "y"', async () => {
      const id = await seedOne();
      const run = await cli(['approve', id], { tty: true, input: 'y\n' });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Approve tool send_email for approval ${id}? [y/N] `);
      expect((await show(id)).status).toBe('approved');
    });

    test('approve answered "n" sends nothing', async () => {
      const id = await seedOne();
      const before = posts().length;
      const run = await cli(['approve', id], { tty: true, input: 'n\n' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('Not approved: nothing was sent.');
      expect(posts().length).toBe(before);
      expect((await show(id)).status).toBe('pending');
    });

    test('an empty answer, or no answer at all, is no', async () => {
      const id = await seedOne();
      const before = posts().length;
      for (const input of ['\n', '']) {
        const run = await cli(['deny', id], { tty: true, input });
        expect(run.code).toBe(1);
        expect(run.stdout).toContain(`Deny tool send_email for approval ${id}? [y/N] `);
        expect(run.stderr).toContain('Not denied: nothing was sent.');
      }
      expect(posts().length).toBe(before);
    });

    test('an approval decided before is shown, with who decided it, and not decided again', async () => {
      const id = await seedOne();
      expect((await cli(['deny', id, '--yes'])).code).toBe(0);
      const before = posts().length;
      const run = await cli(['approve', id, '--yes']);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('Status:      denied');
      expect(run.stderr).toMatch(new RegExp(`Error: Approval ${id} is denied by ${ALICE.userArn} at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ, not pending: nothing to decide\\.`));
      expect(posts().length).toBe(before);
    });

    test('deny --reason keeps the reason', async () => {
      const id = await seedOne();
      const run = await cli(['deny', id, '--reason', 'too risky', '--yes']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`Denied ${id}, tool send_email as ${ALICE.userArn} (reason: too risky).`);
      expect(await show(id)).toMatchObject({ status: 'denied', reason: 'too risky', decided_by: ALICE.userArn });
    });

    test('deny --json prints only the decided record on stdout', async () => {
      const id = await seedOne();
      const run = await cli(['deny', id, '--yes', '--json']);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ approval_id: id, status: 'denied' });
      expect(run.stderr).toContain('Tool:        send_email');
    });

    test('without a terminal and without --yes it refuses before any request', async () => {
      const id = await seedOne();
      const before = host.events.length;
      const run = await cli(['approve', id], { tty: false, input: 'y\n' });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Refusing to approve without confirmation: stdin is not a terminal');
      expect(run.stderr).toContain('--yes');
      expect(host.events.length).toBe(before);
    });

    test('a missing approval is a 404 with the API\'s type and message', async () => {
      const show404 = await cli(['show', 'apr_missing']);
      expect(show404.code).toBe(1);
      expect(show404.stderr).toMatch(/^Error: 404 \w+: .+/);
      const approve404 = await cli(['approve', 'apr_missing', '--yes']);
      expect(approve404.code).toBe(1);
      expect(approve404.stderr).toMatch(/^Error: 404 /);
      expect(approve404.stderr).toContain('See the ids there are with `approvals list` (`--status pending` for those waiting)');
      expect(approve404.stdout).toBe('');
      const json = await cli(['show', 'apr_missing', '--json']);
      expect(JSON.parse(json.stderr)).toEqual({ error: { status: 404, type: expect.any(String), message: expect.any(String) } });
    });

    test('a decision taken meanwhile is a 409 already_decided', async () => {
      const id = await seedOne();
      intercept = async (event, next) => {
        if (event.requestContext.http.method === 'POST') await next(event); // someone else, first
        return next(event);
      };
      const run = await cli(['approve', id, '--yes']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Error: 409 already_decided: .+\nSomeone decided it first/);
    });

    test('args changed since they were shown is a 409 fingerprint_mismatch', async () => {
      const id = await seedOne();
      intercept = async (event, next) =>
        next(event.requestContext.http.method === 'POST' ? { ...event, body: JSON.stringify({ ...JSON.parse(event.body!), fingerprint: 'stale' }) } : event);
      const run = await cli(['deny', id, '--yes']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Error: 409 fingerprint_mismatch: .+/);
      expect((await show(id)).status).toBe('pending');
    });

    test('a bad body is a 400 that names the field', async () => {
      const id = await seedOne();
      intercept = async (event, next) => {
        if (event.requestContext.http.method !== 'POST') return next(event);
        const { fingerprint: _dropped, ...rest } = JSON.parse(event.body!) as Record<string, unknown>;
        return next({ ...event, body: JSON.stringify(rest) });
      };
      const run = await cli(['approve', id, '--yes']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/Error: 400 \w+: .*fingerprint/);
    });

    test('an expired approval is not decided', async () => {
      if (!api.canSeedExpired) return;
      const id = await api.seed({ tool: 'send_email', args: {}, expired: true });
      expect((await show(id)).status).toBe('expired');
      const before = posts().length;
      const run = await cli(['approve', id, '--yes']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Error: Approval ${id} is expired, not pending: nothing to decide.`);
      expect(posts().length).toBe(before);

      // Expired between the read and the decision: the API's 409 expired.
      intercept = async (event, next) => {
        const reply = (await next(event)) as { statusCode: number; body: string };
        if (event.requestContext.http.method !== 'GET') return reply;
        return { ...reply, body: JSON.stringify({ ...JSON.parse(reply.body), status: 'pending' }) };
      };
      const late = await cli(['approve', id, '--yes']);
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(/Error: 409 expired: .+/);
    });

    test('a wrong secret is refused by the URL (403) with a hint about grantApprove', async () => {
      const before = host.events.length;
      const run = await runCli(['approvals', 'list', '--url', host.url], { env: credentialsEnv(ALICE.accessKeyId, 'not-the-secret') });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('Error: 403: Forbidden');
      expect(run.stderr).toContain('grantApprove');
      expect(host.events.length).toBe(before);
    });

    test('no credentials at all says how to provide them', async () => {
      const before = host.events.length;
      const run = await runCli(['approvals', 'list', '--url', host.url], { env: bareEnv() });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('No AWS credentials found');
      expect(run.stderr).toContain('AWS_PROFILE');
      expect(run.stderr).toContain('aws configure');
      expect(run.stderr).toContain('AWS_ACCESS_KEY_ID');
      expect(host.events.length).toBe(before);
    });
  });
}

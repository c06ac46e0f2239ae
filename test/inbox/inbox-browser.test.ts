import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumPath, decideInPage, launchChromium, signInThroughPage } from '../../local/inbox-page';
import { LOCAL_INBOX_USER, LocalRun } from '../../local/runtime';
import { decide, localApprovalsClient, waitForReply } from '../../local/scripting';
import { removeMade } from '../local/sample-assembly';
import { INBOX_GROUP, synthesizeInboxApp } from './inbox-app';

/**
 * The inbox in headless Chromium (Debian's `chromium`, driven by playwright-core) against the local
 * run of an app whose ToolHandler an ApprovalsInbox serves: sign in through the local OpenID issuer,
 * see a pending approval with its args and who asked, approve it and see the resume's `ok`; deny
 * with a reason; a user of another group sees neither the approval nor its args; a changed approval
 * answers 409 and the page says so; axe-core finds no serious or critical violation; the list, an
 * approval and the phone layout are photographed (for the guide, docs/images, with
 * UPDATE_SCREENSHOTS=1). Nothing is skipped: without Chromium the suite fails, naming the package to
 * install.
 */

/** Where the screenshots go: the guide's images with UPDATE_SCREENSHOTS=1, else a temporary directory (a run leaves the tree clean). */
const IMAGES = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(__dirname, '..', '..', 'docs', 'images') : fs.mkdtempSync(path.join(os.tmpdir(), 'inbox-shots-'));
const OWNER = 'refunds';
let run: LocalRun;
let browser: Browser;

beforeAll(async () => {
  chromiumPath(); // fails, naming Debian's package, when Chromium is missing
  run = await LocalRun.start({ assembly: synthesizeInboxApp(), print: () => undefined });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await run?.stop();
  removeMade();
});

let context: BrowserContext;
let page: Page;
beforeEach(async () => {
  await run.signInToInbox({ ...LOCAL_INBOX_USER, groups: [INBOX_GROUP] });
  context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  page = await context.newPage();
});
afterEach(() => context.close());

let calls = 0;
/** Sends a refund call and returns its `pending_approval` reply. */
async function requestRefund(args: Record<string, unknown>): Promise<any> {
  const from = run.lines.length;
  await run.send([{ tool: 'refund', args, run_id: 'inbox-test', call_id: `refund-${++calls}` }]);
  const reply = await waitForReply(run, from, (r) => r.tool === 'refund', 10_000);
  expect(reply).toMatchObject({ status: 'pending_approval' });
  return reply;
}

const status = async (id: string) => (await localApprovalsClient(run)!.get(id)).status;

test('sign in, see the pending approval with its args and who asked, approve it, and the resume answers ok', async () => {
  const pending = await requestRefund({ orderId: 'o-4711', reason: 'Parcel arrived damaged', amount: { value: 49.9, currency: 'EUR' } });
  expect(pending.inbox_url).toBe(`${run.inboxUrl}#/o/${OWNER}/a/${pending.approval_id}`);
  await signInThroughPage(page, run.inboxUrl!);
  await expect(page.getByRole('heading', { name: 'Pending approvals' }).isVisible()).resolves.toBe(true);
  const item = page.locator('li', { hasText: 'refund' }).first();
  await item.waitFor();
  expect(await item.textContent()).toMatch(/Refunds an order \(needs approval\)\.Asked by local/);
  await page.screenshot({ path: path.join(IMAGES, 'inbox-list.png') });

  await item.getByRole('link', { name: 'refund' }).click();
  await page.getByRole('heading', { name: 'Arguments' }).waitFor();
  const main = (await page.locator('main').textContent()) ?? '';
  expect(main).toContain('o-4711');
  expect(main).toContain('Parcel arrived damaged');
  expect(main).toContain('"currency": "EUR"');
  expect(main).toMatch(/Asked bylocal/);
  await page.screenshot({ path: path.join(IMAGES, 'inbox-approval.png') });

  const from = run.lines.length;
  // The decision is one request: the page's only POST, and the only request that changes anything.
  const sent: string[] = [];
  const record = (request: { method(): string; url(): string }) => sent.push(`${request.method()} ${new URL(request.url()).pathname}`);
  page.on('request', record);
  expect(await decideInPage(page, { approved: true })).toMatch(/Approved/);
  page.off('request', record);
  expect(sent.filter((r) => !r.startsWith('GET '))).toEqual([`POST /api/approvals/${pending.approval_id}/decision`]);
  const resumed = await waitForReply(run, from, (r) => r.approval_id === pending.approval_id && r.status !== 'pending_approval', 10_000);
  expect(resumed).toMatchObject({ status: 'ok', result: { refunded: 'o-4711' } });
  const decided = await localApprovalsClient(run)!.get(pending.approval_id);
  expect(decided.decided_by).toBe(`oidc:${run.inboxIssuerUrl}#${LOCAL_INBOX_USER.sub}`);
  expect(await page.locator('main').textContent()).toContain(`oidc:${run.inboxIssuerUrl}#${LOCAL_INBOX_USER.sub}`);
});

test('deny with a reason: the reason is needed, recorded, and the resume is ApprovalDenied', async () => {
  const pending = await requestRefund({ orderId: 'o-2' });
  await signInThroughPage(page, pending.inbox_url);
  await page.getByRole('heading', { name: 'Arguments' }).waitFor();
  await page.getByRole('button', { name: 'Deny…' }).click();
  await page.getByRole('button', { name: 'Deny', exact: true }).click();
  expect(await page.getByLabel('Reason for denying').getAttribute('aria-invalid')).toBe('true');
  expect(await status(pending.approval_id)).toBe('pending');
  const from = run.lines.length;
  await page.getByLabel('Reason for denying').fill('Outside the return window');
  await page.getByRole('button', { name: 'Deny', exact: true }).click();
  await page.locator('main .notice').first().waitFor();
  expect(await page.locator('main .notice').first().textContent()).toMatch(/Denied/);
  const record = await localApprovalsClient(run)!.get(pending.approval_id);
  expect(record).toMatchObject({ status: 'denied', reason: 'Outside the return window' });
  const resumed = await waitForReply(run, from, (r) => r.approval_id === pending.approval_id && r.status === 'error', 10_000);
  expect(resumed?.error?.type).toBe('ApprovalDenied');
  // The history lists it: who decided, and why.
  await page.getByRole('link', { name: 'Pending approvals' }).click();
  await page.getByRole('link', { name: `Decided and expired approvals of ${OWNER}` }).click();
  const entry = page.locator('li', { hasText: 'Outside the return window' });
  await entry.waitFor();
  expect(await entry.textContent()).toMatch(new RegExp(`denied.*By oidc:${run.inboxIssuerUrl}#${LOCAL_INBOX_USER.sub}`));
});

test('a user of another group sees neither the approval nor its args, and its link says not found', async () => {
  const pending = await requestRefund({ orderId: 'o-secret-77' });
  await run.signInToInbox({ sub: 'eve', email: 'eve@localhost', groups: ['marketing'] });
  await signInThroughPage(page, run.inboxUrl!);
  await page.getByText('You may decide no approvals here').waitFor();
  expect(await page.content()).not.toContain('o-secret-77');
  await page.goto(pending.inbox_url);
  await page.reload();
  await page.getByRole('alert').waitFor();
  expect(await page.getByRole('alert').textContent()).toMatch(/No such owner among those you may decide/);
  expect(await page.content()).not.toContain('o-secret-77');
  expect(await status(pending.approval_id)).toBe('pending');
});

test('an approval decided elsewhere after the page showed it: 409, and the page says so', async () => {
  const pending = await requestRefund({ orderId: 'o-3' });
  await signInThroughPage(page, pending.inbox_url);
  await page.getByRole('heading', { name: 'Arguments' }).waitFor();
  await decide(localApprovalsClient(run)!, pending.approval_id, false, 'decided on the CLI');
  await page.getByRole('button', { name: 'Approve' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/changed or was decided since you opened it: nothing was decided/);
  expect(await status(pending.approval_id)).toBe('denied');
});

test('opening every link without signing in decides nothing', async () => {
  const pending = await requestRefund({ orderId: 'o-4' });
  for (const url of [pending.inbox_url, run.inboxUrl!, `${run.inboxUrl}api/owners/${OWNER}/approvals/${pending.approval_id}/decision`]) {
    await page.goto(url);
  }
  expect(await status(pending.approval_id)).toBe('pending');
});

test('axe-core finds no serious or critical violation on the list, an approval, the deny form, and on a phone', async () => {
  const pending = await requestRefund({ orderId: 'o-5', note: 'x'.repeat(400) });
  const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const check = async (where: string) => {
    // Evaluated by the driver, outside the page's CSP (which allows no other script).
    await page.evaluate(axeSource);
    const result: any = await page.evaluate(() => {
      const browserGlobal = globalThis as any;
      return browserGlobal.axe.run(browserGlobal.document, { resultTypes: ['violations'] });
    });
    const bad = result.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical');
    expect({ where, violations: bad.map((v: any) => `${v.id}: ${v.help}`) }).toEqual({ where, violations: [] });
  };
  await page.goto(run.inboxUrl!);
  await check('sign-in');
  await signInThroughPage(page, run.inboxUrl!);
  await page.locator('li', { hasText: 'refund' }).first().waitFor();
  await check('list');
  await page.goto(pending.inbox_url);
  await page.getByRole('heading', { name: 'Arguments' }).waitFor();
  await check('approval');
  await page.getByRole('button', { name: 'Deny…' }).click();
  await check('deny form');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.getByRole('heading', { name: 'Arguments' }).waitFor();
  await check('phone');
  const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
  expect(width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join(IMAGES, 'inbox-phone.png'), fullPage: true });
  // Keyboard: the approval's controls are reachable by Tab.
  const reached: string[] = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    reached.push(await page.evaluate(() => ((globalThis as any).document.activeElement?.textContent ?? '') as string));
  }
  expect(reached).toEqual(expect.arrayContaining(['Approve', 'Deny…']));
});

test("signing out ends the provider's session too: the page goes to its end-session endpoint, which sends it back signed out", async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInThroughPage(page, run.inboxUrl!);
  const visited: URL[] = [];
  const record = (request: { url(): string; isNavigationRequest(): boolean }) => {
    if (request.isNavigationRequest()) visited.push(new URL(request.url()));
  };
  page.on('request', record);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  page.off('request', record);
  const endSession = visited.find((url) => url.origin === run.inboxIssuerUrl && url.pathname === '/endsession');
  expect(endSession?.searchParams.get('client_id')).toBeTruthy();
  expect(endSession?.searchParams.get('post_logout_redirect_uri')).toBe(`${run.inboxUrl!.replace(/\/$/, '')}/`);
  expect(endSession?.searchParams.get('id_token_hint')).toMatch(/^ey/);
  // Back on the inbox, which keeps no token.
  expect(visited[visited.length - 1].origin).toBe(new URL(run.inboxUrl!).origin);
  const kept = await page.evaluate(() => Object.keys((globalThis as any).sessionStorage).filter((k) => /token/i.test(k)));
  expect(kept).toEqual([]);
  expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
});

/**
 * Driving the approvals inbox's page as a person would, in headless Chromium (Debian's `chromium`
 * package) through playwright-core: what `local demo` does to decide one approval in the page, and
 * what the inbox's browser tests build on. Both are found at run time: playwright-core from the
 * project (a devDependency), Chromium at `CHROMIUM_PATH` or /usr/bin/chromium.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CliError } from '../console/errors';

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's. */
export function chromiumPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const chosen = env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(chosen)) {
    throw new CliError(`Driving the inbox's page needs Chromium at ${chosen}: install Debian's package (apt-get install -y chromium), or set CHROMIUM_PATH.`);
  }
  return chosen;
}

/** Headless Chromium, driven by playwright-core. */
export async function launchChromium(): Promise<Browser> {
  let playwright: typeof import('playwright-core');
  try {
    playwright = createRequire(path.join(process.cwd(), 'package.json'))('playwright-core');
  } catch {
    try {
      playwright = require('playwright-core');
    } catch {
      throw new CliError('Driving the inbox\'s page needs playwright-core: run `npm i -D playwright-core`.');
    }
  }
  return playwright.chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
}

/** Opens `url` (the inbox, or an approval's link in it) and signs in through the page's button; resolves once the page shows who is signed in. */
export async function signInThroughPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** On an approval's page: approves it, or denies it with `reason`; resolves with the notice the page then shows. */
export async function decideInPage(page: Page, decision: { approved: true } | { approved: false; reason: string }): Promise<string> {
  if (decision.approved) {
    await page.getByRole('button', { name: 'Approve' }).click();
  } else {
    await page.getByRole('button', { name: 'Deny…' }).click();
    await page.getByLabel('Reason for denying').fill(decision.reason);
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
  }
  const notice = page.locator('main .notice').first();
  await notice.waitFor();
  return (await notice.textContent()) ?? '';
}

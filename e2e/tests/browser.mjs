// Shared set-up: Debian's Chromium driven by playwright-core (no browser download).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.E2E_BASE_URL ?? 'http://127.0.0.1:8000';
export const ARTIFACTS = process.env.E2E_ARTIFACTS ?? 'test-results';
mkdirSync(ARTIFACTS, { recursive: true });

export const USERS = {
  owner: { username: 'olive', password: 'olive-e2e-pw' },
  teammate: { username: 'tom', password: 'tom-e2e-pw' },
  outsider: { username: 'oscar', password: 'oscar-e2e-pw' },
};

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}

export async function signIn(browser, user) {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  await page.goto('/');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page };
}

export async function screenshot(page, name) {
  // From the top: a sticky panel (the timeline) is drawn where the page was last scrolled to.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

// Findings are folded to one line each: open every line of a region until the wanted content shows
// (analyses that finish meanwhile add lines).
export async function openUntil(region, wanted, timeout = 60_000) {
  const closed = region.locator('.finding__line[aria-expanded="false"]');
  for (const end = Date.now() + timeout; Date.now() < end; ) {
    for (let n = await closed.count(); n > 0; n = await closed.count()) await closed.first().click();
    if (await wanted.first().isVisible()) return;
    await region.page().waitForTimeout(500);
  }
  await wanted.first().waitFor({ timeout: 1 });
}

/** Click a link that downloads a file and return the file's text. */
export async function downloadText(page, link) {
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The postmortem's printable page, opened from the incident page: it runs nothing (no script, a CSP that says so). */
export async function openPrintable(page) {
  const [printable] = await Promise.all([
    page.waitForEvent('popup'),
    page.getByRole('link', { name: 'Printable page' }).click(),
  ]);
  await printable.getByRole('heading', { name: 'Fixes' }).waitFor();
  const headers = (await page.request.get(printable.url())).headers();
  assert.match(headers['content-security-policy'], /script-src 'none'/);
  assert.equal(await printable.locator('script').count(), 0);
  return printable;
}

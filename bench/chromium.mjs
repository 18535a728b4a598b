// What the Chromium benchmarks share: Debian's Chromium started headless as the e2e tests start it, the console's
// URL and the demo user's password, and a signed-in browser context at 1280x800.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '../e2e/node_modules/playwright-core/index.mjs';

export const defaultUrl = `http://127.0.0.1:${process.env.WHODUNNET_PORT ?? '8000'}`;

/** WHODUNNET_BENCH_PASSWORD, or the demo user's password that `make dev` wrote in the data folder. */
export function benchPassword() {
  return (
    process.env.WHODUNNET_BENCH_PASSWORD ??
    readFileSync(join(process.env.WHODUNNET_DATA_DIR ?? '.data', 'demo_password'), 'utf8').trim()
  );
}

/** A browser and a context signed in as `user` at `url`, 1280x800; `watch(page)` is called before the sign-in page
 * opens (to listen for console errors from the first page on). */
export async function signedIn(url, user, watch = () => {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  watch(page);
  await page.goto('/');
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(benchPassword());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { browser, context, page };
}

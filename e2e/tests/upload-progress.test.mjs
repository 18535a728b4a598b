// A larger real capture over a slow uplink: the progress bar moves, then the analysis summary lands; its 500
// connections scroll in one box.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, signIn, USERS } from './browser.mjs';

// Zeek's echo-connections trace: tshark counts 82,582 packets in 500 TCP conversations.
const CAPTURE = fileURLToPath(new URL('./data/echo-connections.pcap.gz', import.meta.url));
let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

test('an upload shows its progress and the capture summary appears when analysed', async () => {
  const { context, page } = await signIn(browser, USERS.owner);
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Echo service slow after deploy');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Echo service slow after deploy' }).waitFor();

  // Throttle the uplink (1.9 MB at ~512 KiB/s) so the upload takes seconds, as a real one does.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 20,
    downloadThroughput: -1,
    uploadThroughput: 512 * 1024,
  });

  await page.getByLabel('Upload evidence').setInputFiles(CAPTURE);
  const seen = new Set();
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const bars = page.getByRole('progressbar');
    for (const bar of await bars.all()) {
      const value = await bar.getAttribute('aria-valuenow').catch(() => null);
      if (value !== null) seen.add(Math.round(Number(value)));
    }
    if ([...seen].some((v) => v > 0 && v < 100) && seen.size >= 3) break;
    await page.waitForTimeout(100);
  }
  await screenshot(page, '05-upload-in-progress');
  const partial = [...seen].filter((v) => v > 0 && v < 100);
  assert.ok(partial.length >= 2, `expected the bar to pass through intermediate values, saw ${[...seen]}`);

  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  const card = page.getByRole('article').filter({ hasText: 'echo-connections.pcap.gz' });
  await card.getByText(/82,582 packets/).waitFor({ timeout: 90_000 });
  await card.getByText(/500 TCP connections/).waitFor();
  await screenshot(page, '06-larger-capture-analysed');

  // Its 500 connections in one scroll box: only the rows in view are in the page, the rest are fetched and drawn
  // as the box scrolls, and a row opens with the keyboard.
  await card.getByRole('link', { name: 'Connections (500)' }).click();
  const table = page.getByRole('table', { name: 'Connections' });
  await table.getByRole('link', { name: /^Connection 0:/ }).waitFor();
  assert.equal(await table.getAttribute('aria-rowcount'), '501');
  const drawn = () => table.locator('tbody tr:not([aria-hidden])').count();
  assert.ok((await drawn()) < 60, `only the rows in view and a few more are drawn, not ${await drawn()}`);
  await page.getByText(/^500 connections · rows 1–\d+ in view$/).waitFor();
  const box = page.locator('.connections__scroll');
  await box.evaluate((element) => {
    element.scrollTop = element.scrollHeight;
  });
  await table.getByRole('link', { name: /^Connection 499:/ }).waitFor();
  assert.ok((await drawn()) < 60, `still only the rows in view after scrolling, not ${await drawn()}`);
  assert.equal(await table.getByRole('link', { name: /^Connection 0:/ }).count(), 0);
  // The header stays at the top of the box.
  const [boxTop, headerTop] = await Promise.all([
    box.evaluate((element) => element.getBoundingClientRect().top),
    table.locator('thead th').first().evaluate((element) => element.getBoundingClientRect().top),
  ]);
  assert.ok(Math.abs(headerTop - boxTop) <= 2, `the header scrolled away (${headerTop} vs ${boxTop})`);
  await screenshot(page, '08-connections-scrolled-to-the-end');
  await table.getByRole('link', { name: /^Connection 499:/ }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: /^Connection 499:/ }).waitFor();
  await context.close();
});

// Packets behind a capture finding: "Show packets" opens the connection's packet list, pages on,
// and "Download these packets" gives a pcap that tshark opens with exactly the listed packets;
// then the connection view of a connection whose SYNs were never answered.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, launch, openUntil, screenshot, signIn, USERS } from './browser.mjs';

const CAPTURE = fileURLToPath(new URL('./data/loopback-scenarios.pcap', import.meta.url));
let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

test('a finding’s packets: listed, paged, downloaded as a pcap tshark reads', async () => {
  const { context, page } = await signIn(browser, USERS.owner);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Consumer stalls on the loopback test rig');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Consumer stalls on the loopback test rig' }).waitFor();
  await page.getByLabel('Upload evidence').setInputFiles(CAPTURE);
  const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'loopback-scenarios.pcap' }) });
  await card.getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });

  // The first capture finding that names a connection: its packets, opened from the keyboard.
  const show = page.getByRole('link', { name: 'Show packets' }).first();
  await openUntil(page.locator('body'), show); // findings are folded to one line each
  await show.focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: /Packets of connection \d+:/ }).waitFor();
  const table = page.locator('table.packets__table');
  await table.waitFor({ timeout: 30_000 });
  const listed = await table.locator('tbody tr td:first-child').allTextContents();
  assert.ok(listed.length > 0, 'the finding’s page lists packets');
  await screenshot(page, '30-packet-list');

  // "Download these packets": a pcap tshark opens, with the packets the list shows (one page here).
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download these packets (pcap)' }).click(),
  ]);
  const saved = join(ARTIFACTS, 'packets.pcap');
  await download.saveAs(saved);
  const frames = execFileSync('tshark', ['-r', saved, '-T', 'fields', '-e', 'frame.time_epoch'], { encoding: 'utf8' })
    .trim()
    .split('\n');
  assert.equal(frames.length, listed.length, `${frames.length} packets in the pcap, ${listed.length} listed`);

  // A connection of 256 packets: pages of 100, forward and back.
  await page.goto(page.url().replace(/connections\/\d+\/packets.*$/, 'connections/0/packets'));
  await page.getByText(/^Page 1: packets 1–/).waitFor({ timeout: 30_000 });
  const first = await table.locator('tbody tr td').first().textContent();
  await page.getByRole('button', { name: /Next 100/ }).click();
  await page.getByText(/^Page 2: packets/).waitFor();
  assert.notEqual(await table.locator('tbody tr td').first().textContent(), first);
  await page.getByRole('button', { name: /Next 100/ }).click();
  await page.getByText(/^Page 3: packets/).waitFor();
  assert.ok(await page.getByRole('button', { name: /Next 100/ }).isDisabled(), 'the last page has no next');
  await screenshot(page, '33-packet-list-page-3');
  await page.getByRole('button', { name: /Previous/ }).click();
  await page.getByText(/^Page 2: packets/).waitFor();

  // A connection whose SYNs were never answered: retries counted, drawn, and its packets marked.
  await page.goto(page.url().replace(/connections\/\d+\/packets.*$/, 'connections/3'));
  await page.getByRole('heading', { name: /Connection 3:/ }).waitFor();
  const directions = page.getByRole('table', { name: 'Each direction' });
  assert.match(await directions.getByRole('row', { name: /Retransmissions/ }).textContent(), /3 \(0 \/ 0 \/ 3\)/);
  assert.doesNotMatch(await page.getByLabel('Handshake and close').textContent(), /not captured/);
  await page.getByRole('img', { name: /Time-sequence graph/ }).locator('canvas').waitFor({ timeout: 30_000 });
  await screenshot(page, '31-connection-unanswered-syns');
  await page.getByRole('link', { name: 'Show packets' }).click();
  await page.locator('table.packets__table').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('table.packets__table tbody tr').getByText('SYN retry').count(), 3);
  await screenshot(page, '32-packet-list-syn-retries');
  await context.close();
});

// Issue 4 in the browser: counter snapshots uploaded in the wrong order are re-paired by the time
// each was taken, and seed 003's BBR-candidate method is re-run with a setting a person changed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, signIn, USERS } from './browser.mjs';

const data = (name) => fileURLToPath(new URL(`./data/loopback/${name}`, import.meta.url));
let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

function cardOf(page, name) {
  return page.getByRole('article').filter({ has: page.getByRole('heading', { name, exact: true }) });
}

async function upload(page, name) {
  await page.getByLabel('Upload evidence').setInputFiles(data(name));
  const card = cardOf(page, name);
  await card.getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });
  return card;
}

async function takenAt(card, local) {
  await card.getByLabel('Snapshot taken at').fill(local);
  await card.getByRole('button', { name: 'Save time' }).click();
}

test('snapshots re-paired by time, and a BBR setting changed on the card', async () => {
  const { page } = await signIn(browser, USERS.teammate);
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Retransmits after the top-of-rack swap');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Retransmits after the top-of-rack swap' }).waitFor();

  // The later snapshot goes up first: by upload order it is taken as the earlier one.
  const later = await upload(page, 'nstat-after.txt');
  const earlier = await upload(page, 'nstat-before.txt');
  await later.getByText('Earlier snapshot, diffed with nstat-before.txt (interval unknown).').waitFor({ timeout: 30_000 });
  await later.getByText('Ordered by upload; say when each was taken to pair them by time.').waitFor();

  await takenAt(earlier, '2026-11-20T10:00:00');
  await takenAt(later, '2026-11-20T10:00:30');
  await later.getByText(/^Later snapshot, diffed with nstat-before\.txt \(over 30/).waitFor({ timeout: 30_000 });
  await later.getByText('Ordered by the time each was taken.').waitFor();
  const network = page.getByRole('region', { name: 'Network' });
  await network
    .getByText(/3 TCP segments retransmitted over 30\.0 s \(nstat-before\.txt → nstat-after\.txt\)/)
    .first()
    .waitFor({ timeout: 30_000 });
  await screenshot(page, '20-counters-re-paired-by-time');

  // Seed 003's method over ss snapshots; flows of 1 KB and more now count.
  const ss = await upload(page, 'ss-tinmoe-timeseries.txt');
  const bbr = network.getByRole('article').filter({ hasText: 'consistently in the bottom 20% by delivery rate' });
  await bbr.getByText(/Intervals\s*8/).waitFor({ timeout: 30_000 });
  await ss.getByText('BBR-candidate settings').click();
  const minBytes = ss.getByLabel('Ignore flows under (bytes)');
  assert.equal(await minBytes.inputValue(), '100000');
  await minBytes.fill('1000');
  await minBytes.press('Enter');
  await ss.getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });
  await bbr.getByText(/Intervals\s*12/).waitFor({ timeout: 30_000 });
  await page.getByText('ss-tinmoe-timeseries.txt: BBR-candidate settings min_bytes 1000; analysing it again').waitFor();
  await screenshot(page, '21-bbr-settings-changed');
});

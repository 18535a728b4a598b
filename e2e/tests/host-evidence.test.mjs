// Counter snapshots uploaded in the wrong order are re-paired by the time each was taken, snapshots of two hosts
// pair per host once the cards say which host each is from, and the BBR-candidate method is re-run with
// a setting a person changed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch, openUntil, screenshot, signIn, USERS } from './browser.mjs';

const data = (name, dir = 'loopback') => fileURLToPath(new URL(`./data/${dir}/${name}`, import.meta.url));
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

/** Uploads a file under another name (so the name says nothing the test does not want it to say). */
async function upload(page, file, name = file, dir = 'loopback') {
  await page
    .getByLabel('Upload evidence')
    .setInputFiles({ name, mimeType: 'text/plain', buffer: readFileSync(data(file, dir)) });
  const card = cardOf(page, name);
  await card.getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });
  return card;
}

/** Says where a file comes from on its card, from the keyboard. */
async function provenance(card, { host, takenAt }) {
  const details = card.locator('.provenance details');
  if (!(await details.evaluate((d) => d.open))) {
    await card.getByText('Change host, role or time').focus();
    await card.page().keyboard.press('Enter');
  }
  if (host !== undefined) await card.getByRole('textbox', { name: 'Host' }).fill(host);
  if (takenAt !== undefined) await card.getByLabel('Taken at').fill(takenAt);
  await card.getByLabel('Taken at').press('Enter');
}

async function takenAt(card, local) {
  await provenance(card, { takenAt: local });
}

async function newIncident(page, title) {
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill(title);
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: title }).waitFor();
}

test('snapshots re-paired by time, and a BBR setting changed on the card', async () => {
  const { page } = await signIn(browser, USERS.teammate);
  await newIncident(page, 'Retransmits after the top-of-rack swap');

  // The later snapshot goes up first, under a name that says nothing about when it was taken.
  const later = await upload(page, 'nstat-after.txt', 'nstat-1.txt');
  const earlier = await upload(page, 'nstat-before.txt', 'nstat-2.txt');
  await later.getByText(/^(Earlier|Later) snapshot, diffed with nstat-2\.txt \(interval unknown\)\./).waitFor({ timeout: 30_000 });

  await takenAt(earlier, '2026-11-20T10:00:00');
  await takenAt(later, '2026-11-20T10:00:30');
  await later.getByText(/^Later snapshot, diffed with nstat-2\.txt \(over 30/).waitFor({ timeout: 30_000 });
  await later.getByText('Ordered by the time each was taken.').waitFor();
  await later.getByText(/set by a person/).waitFor();
  const network = page.getByRole('region', { name: 'Network' });
  await network
    .getByText(/3 TCP segments retransmitted .*over 30\.0 s/)
    .first()
    .waitFor({ timeout: 30_000 });
  await screenshot(page, '20-counters-re-paired-by-time');

  // The BBR-candidate method over ss snapshots; flows of 1 KB and more now count.
  const ss = await upload(page, 'ss-tinmoe-timeseries.txt');
  const bbr = network.getByRole('listitem').filter({ hasText: 'consistently in the bottom 20% by delivery rate' });
  await openUntil(network, bbr.getByText(/Intervals\s*8/), 30_000);
  await ss.getByText('Details', { exact: true }).click(); // a file's settings are among its card's details
  await ss.getByText('BBR-candidate settings').click();
  const minBytes = ss.getByLabel('Ignore flows under (bytes)');
  assert.equal(await minBytes.inputValue(), '100000');
  await minBytes.fill('1000');
  await minBytes.press('Enter');
  await ss.getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });
  await openUntil(network, bbr.getByText(/Intervals\s*12/), 30_000);
  await page.getByText('ss-tinmoe-timeseries.txt: BBR-candidate settings min_bytes 1000; analysing it again').waitFor();
  await screenshot(page, '21-bbr-settings-changed');
});

test('snapshots of two hosts, uploaded in reverse order, pair per host once the cards name the hosts', async () => {
  const { page } = await signIn(browser, USERS.teammate);
  await newIncident(page, 'Retransmits on two VMs');
  // After before before, and names that do not say which host or which moment: nstat-1 and nstat-3 are one VM's,
  // nstat-2 and nstat-4 the other's (recorded in network namespaces: the client retransmitted 13 segments, the
  // server 236, exactly what the router between them dropped).
  const cards = {};
  for (const [file, name] of [
    ['client-nstat-after.txt', 'nstat-1.txt'],
    ['server-nstat-after.txt', 'nstat-2.txt'],
    ['client-nstat-before.txt', 'nstat-3.txt'],
    ['server-nstat-before.txt', 'nstat-4.txt'],
  ]) {
    cards[name] = await upload(page, file, name, 'two-hosts');
  }
  await cards['nstat-1.txt'].getByRole('term').filter({ hasText: 'Host' }).waitFor();
  for (const [name, host] of [
    ['nstat-1.txt', 'vm-a'],
    ['nstat-3.txt', 'vm-a'],
    ['nstat-2.txt', 'vm-b'],
    ['nstat-4.txt', 'vm-b'],
  ]) {
    await provenance(cards[name], { host });
    await cards[name].getByText(`${host} (set by a person)`).waitFor({ timeout: 30_000 });
  }
  const network = page.getByRole('region', { name: 'Network' });
  // Each host's own delta, between its own two snapshots, ordered by the counters themselves.
  await network
    .getByText('13 TCP segments retransmitted on vm-a between nstat-3.txt and nstat-1.txt', { exact: false })
    .first()
    .waitFor({ timeout: 30_000 });
  await network
    .getByText('236 TCP segments retransmitted on vm-b between nstat-4.txt and nstat-2.txt', { exact: false })
    .first()
    .waitFor({ timeout: 30_000 });
  await cards['nstat-1.txt'].getByText(/^Later snapshot, diffed with nstat-3\.txt from vm-a/).waitFor();
  await cards['nstat-2.txt'].getByText(/^Later snapshot, diffed with nstat-4\.txt from vm-b/).waitFor();
  // Nothing is left over from before the hosts were known.
  await network.getByText(/since boot \(one snapshot/).first().waitFor({ state: 'detached', timeout: 30_000 });
  await screenshot(page, '22-two-hosts-paired-per-host');
});

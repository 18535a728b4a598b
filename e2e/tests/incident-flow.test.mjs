// The issue-2 flow, as a team would live it: two teammates on one incident, one outsider.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch, screenshot, signIn, USERS } from './browser.mjs';

const CAPTURE = fileURLToPath(new URL('./data/retransmit-fast009.pcap', import.meta.url));
let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

test('a team investigates an incident together and an outsider cannot see it', async () => {
  const owner = await signIn(browser, USERS.owner);
  const { page } = owner;

  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Cross-region Kafka timeouts');
  await page.getByLabel('Symptom').fill('Consumers time out after 30 s in us-east-1');
  await page.getByLabel('Severity').selectOption('sev2');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Cross-region Kafka timeouts' }).waitFor();
  const incidentUrl = page.url();
  assert.match(incidentUrl, /\/incidents\/\d+$/);

  const teammate = await signIn(browser, USERS.teammate);
  await teammate.page.goto(incidentUrl);
  await teammate.page.getByRole('heading', { name: 'Cross-region Kafka timeouts' }).waitFor();

  await page.getByLabel('Upload evidence').setInputFiles(CAPTURE);
  const card = page.getByRole('article').filter({ hasText: 'retransmit-fast009.pcap' });
  await card.waitFor();
  await card.getByText(/39 packets/).waitFor({ timeout: 60_000 });
  await card.getByText(/done/i).first().waitFor();
  await screenshot(page, '01-owner-capture-analysed');

  const network = page.getByRole('region', { name: 'Network' });
  await network.getByRole('button', { name: 'Change verdict' }).click();
  await network.getByLabel('Verdict').selectOption('suspect');
  await network.getByRole('button', { name: 'Save verdict' }).click();
  await network.getByText(/rationale/i).first().waitFor();
  await network.getByLabel('Rationale').fill('Retransmissions after 60 s of idle on the client capture');
  await network.getByRole('button', { name: 'Save verdict' }).click();
  await network.getByText('Suspect').first().waitFor();
  await screenshot(page, '02-owner-verdict');

  // The teammate never reloads: the upload and the verdict arrive on the timeline by themselves.
  const timeline = teammate.page.getByRole('region', { name: 'Timeline' });
  await timeline.getByText(/retransmit-fast009\.pcap/).first().waitFor({ timeout: 10_000 });
  await timeline.getByText(/Retransmissions after 60 s of idle/).waitFor({ timeout: 10_000 });
  await screenshot(teammate.page, '03-teammate-timeline');

  const outsider = await signIn(browser, USERS.outsider);
  await outsider.page.goto(incidentUrl);
  await outsider.page.getByRole('heading', { name: 'Not found' }).waitFor();
  assert.equal(await outsider.page.getByText('Cross-region Kafka timeouts').count(), 0);
  await screenshot(outsider.page, '04-outsider-not-found');

  await Promise.all([owner.context.close(), teammate.context.close(), outsider.context.close()]);
});

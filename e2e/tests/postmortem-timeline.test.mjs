// A user walks the timeline tools and exports the postmortem: one upload of three files folds into one line,
// a Markdown note is pinned as key evidence, the filters narrow the log, and the export carries the checklist,
// the pinned note and the fixes the findings point to.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { downloadText, launch, openPrintable, screenshot, signIn, USERS } from './browser.mjs';

const SEED000 = join(fileURLToPath(new URL('.', import.meta.url)), 'data', 'seed000');
let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

test('the timeline folds an upload, pins a note, filters, and the postmortem exports it', async () => {
  const { page } = await signIn(browser, USERS.owner);
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Cross-region reads time out');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Cross-region reads time out' }).waitFor();
  await page
    .getByLabel('Upload evidence')
    .setInputFiles(['before.txt', 'after.txt', 'client.strace'].map((name) => join(SEED000, name)));

  const timeline = page.getByRole('region', { name: 'Timeline' });
  const fold = timeline.getByRole('button', { name: /3 files uploaded by olive · 3 analysed/ });
  await fold.waitFor({ timeout: 60_000 });
  assert.equal(await fold.getAttribute('aria-expanded'), 'false');
  assert.equal(await timeline.getByText('Analysing client.strace').count(), 0);
  await fold.click();
  await timeline.getByText('Analysing client.strace').waitFor();

  await timeline.getByLabel('Add note').fill('**Rolled back** to 6.5.13: timeouts stopped');
  await timeline.getByLabel('Add note').press('Enter');
  const note = timeline.locator('li.event--note').filter({ hasText: 'timeouts stopped' }).first();
  await note.locator('strong', { hasText: 'Rolled back' }).waitFor();
  await note.getByRole('button', { name: 'Pin' }).click();
  await timeline.getByRole('heading', { name: 'Key evidence' }).waitFor();

  await timeline.getByLabel('Kind').selectOption('notes');
  await timeline.getByText('No event matches these filters.').or(timeline.locator('li.event--note').first()).waitFor();
  assert.equal(await timeline.getByRole('log').locator('li.event--evidence_uploaded').count(), 0);
  await timeline.getByLabel('Kind').selectOption('all');
  await screenshot(page, 'timeline-tools');

  const markdown = await downloadText(page, page.getByRole('link', { name: 'Download Markdown' }));
  assert.match(markdown, /^# Postmortem: Cross-region reads time out/);
  assert.match(markdown, /Rolled back\*\* to 6\.5\.13/);
  assert.match(markdown, /`a kernel ≥ 6\.6\.45`/);
  assert.match(markdown, /`receive\.buffer\.bytes=-1`/);

  const printable = await openPrintable(page);
  await screenshot(printable, 'postmortem-printable');
  assert.deepEqual(errors, []);
});

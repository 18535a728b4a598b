// A long, fast timeline never stalls the live view; no page logs a console error under the CSP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BASE_URL, launch, screenshot, signIn, USERS } from './browser.mjs';

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** Console errors and uncaught exceptions of a page, from now on. */
function watchConsole(page) {
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return errors;
}

/** Adds notes through the API from the signed-in page, ten requests at a time. */
async function addNotes(page, incidentId, from, count) {
  await page.evaluate(
    async ({ incidentId, from, count }) => {
      const token = document.cookie.match(/csrftoken=([^;]+)/)?.[1] ?? '';
      let next = from;
      const end = from + count;
      async function worker() {
        while (next < end) {
          const n = next++;
          const response = await fetch(`/api/incidents/${incidentId}/notes/`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-CSRFToken': token },
            body: JSON.stringify({ text: `bulk note ${n}` }),
          });
          if (!response.ok) throw new Error(`note ${n}: ${response.status}`);
        }
      }
      await Promise.all(Array.from({ length: 10 }, worker));
    },
    { incidentId, from, count },
  );
}

test('the timeline opens on the newest events, loads earlier ones, and keeps up with a burst', async () => {
  const { page } = await signIn(browser, USERS.owner);
  const errors = watchConsole(page);
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Timeline burst');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Timeline burst' }).waitFor();
  const incidentId = Number(page.url().split('/').at(-1));

  await addNotes(page, incidentId, 0, 600);
  await page.reload();
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await timeline.getByText('bulk note 599', { exact: true }).waitFor();
  assert.equal(await timeline.getByText('Opened “Timeline burst”', { exact: false }).count(), 0);
  await timeline.getByRole('button', { name: 'Load earlier' }).click();
  await timeline.getByText(/Opened .Timeline burst/).waitFor();

  // More than a page within seconds, while the reader watches: the view reaches the last one by itself.
  const started = Date.now();
  await addNotes(page, incidentId, 600, 700);
  await timeline.getByText('bulk note 1299', { exact: true }).waitFor({ timeout: 15_000 });
  console.log(`burst of 700 notes shown ${Date.now() - started} ms after the first was sent`);
  await screenshot(page, 'timeline-burst');
  assert.deepEqual(errors, []);
});

test('no page logs a console error, signed out or in, with the content security policy on', async () => {
  const context = await browser.newContext({ baseURL: BASE_URL });
  const page = await context.newPage();
  const errors = watchConsole(page);
  const response = await page.goto('/');
  assert.match(response.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  await page.getByLabel('Username').waitFor();
  await page.goto('/admin/login/');
  await page.getByLabel('Username:').waitFor();
  await context.close();

  const { page: signedIn } = await signIn(browser, USERS.owner);
  const more = watchConsole(signedIn);
  await signedIn.goto('/');
  await signedIn.getByRole('link', { name: 'New incident' }).waitFor();
  await signedIn.getByRole('link', { name: 'Timeline burst' }).click();
  await signedIn.getByRole('region', { name: 'Timeline' }).waitFor();
  await signedIn.goto('/api-token');
  await signedIn.waitForLoadState('networkidle');
  assert.deepEqual([...errors, ...more], []);
});

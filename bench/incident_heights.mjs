// Height in pixels of incident pages at 1280x800, as they open (findings folded) and with every finding line open;
// console errors and failed requests on the way. Against a running console (`make demo` for the demo incidents).
//
//   node bench/incident_heights.mjs --ids 1,2,3,4 [--url http://127.0.0.1:8000] [--user demo]
//
// The password is WHODUNNET_BENCH_PASSWORD or $WHODUNNET_DATA_DIR/demo_password (the demo user's).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '../e2e/node_modules/playwright-core/index.mjs';

const { values } = parseArgs({
  options: {
    ids: { type: 'string', default: '1,2,3,4' },
    url: { type: 'string', default: `http://127.0.0.1:${process.env.WHODUNNET_PORT ?? '8000'}` },
    user: { type: 'string', default: 'demo' },
  },
});
const password =
  process.env.WHODUNNET_BENCH_PASSWORD ??
  readFileSync(join(process.env.WHODUNNET_DATA_DIR ?? '.data', 'demo_password'), 'utf8').trim();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ baseURL: values.url, viewport: { width: 1280, height: 800 } });
const problems = [];
page.on('console', (m) => m.type() === 'error' && problems.push(`${page.url()}: ${m.text()}`));
page.on('response', (r) => r.status() >= 400 && problems.push(`${page.url()}: ${r.status()} ${r.url()}`));
await page.goto('/');
await page.getByLabel('Username').fill(values.user);
await page.getByLabel('Password').fill(password);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('button', { name: 'Sign out' }).waitFor();
const height = () => page.evaluate(() => document.documentElement.scrollHeight);
for (const id of values.ids.split(',')) {
  await page.goto(`/incidents/${id}`);
  await page.waitForLoadState('networkidle');
  await page.locator('.finding__line').first().waitFor();
  const folded = await height();
  const closed = page.locator('.finding__line[aria-expanded="false"]');
  for (let n = await closed.count(); n > 0; n = await closed.count()) await closed.first().click();
  await page.waitForLoadState('networkidle');
  await page.locator('figure[class*="chart"] canvas, .latency-histogram canvas').last().waitFor({ timeout: 5_000 }).catch(() => {});
  console.log(`incident ${id} "${await page.locator('h1').first().innerText()}": ${folded} px folded, ${await height()} px open`);
}
console.log(problems.length ? problems.join('\n') : 'no console errors, no failed requests');
await browser.close();

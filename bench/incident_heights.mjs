// Height in pixels of incident pages at 1280x800, as they open (findings folded) and with every finding line open;
// console errors and failed requests on the way. Against a running console (`make demo` for the demo incidents).
//
//   node bench/incident_heights.mjs --ids 1,2,3,4 [--url http://127.0.0.1:8000] [--user demo]
//
// The password is WHODUNNET_BENCH_PASSWORD or $WHODUNNET_DATA_DIR/demo_password (the demo user's).
import { parseArgs } from 'node:util';
import { defaultUrl, signedIn } from './chromium.mjs';

const { values } = parseArgs({
  options: {
    ids: { type: 'string', default: '1,2,3,4' },
    url: { type: 'string', default: defaultUrl },
    user: { type: 'string', default: 'demo' },
  },
});
const problems = [];
const { browser, page } = await signedIn(values.url, values.user, (page) => {
  page.on('console', (m) => m.type() === 'error' && problems.push(`${page.url()}: ${m.text()}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`${page.url()}: ${r.status()} ${r.url()}`));
});
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

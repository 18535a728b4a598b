// Time to first render of an incident page in Chromium: from navigation start to the verdict strip (the four
// layers with their verdicts or suggestions) visible, and to every finding line drawn. Against a running console.
//
//   .venv/bin/python backend/manage.py make_bench_incident --username demo --team Demo   # prints the incident id
//   node bench/incident_page.mjs --incident 6 [--runs 10] [--url http://127.0.0.1:8000] [--user demo]
//
// The password is WHODUNNET_BENCH_PASSWORD or, for the demo user, $WHODUNNET_DATA_DIR/demo_password. The first run
// is cold (no cached assets); the others reload in a new page of the same browser, as a person coming back does.
// Prints each run and min / median / max; a figure, not a pass or fail.
import { parseArgs } from 'node:util';
import { defaultUrl, signedIn } from './chromium.mjs';

const { values } = parseArgs({
  options: {
    incident: { type: 'string' },
    runs: { type: 'string', default: '10' },
    url: { type: 'string', default: defaultUrl },
    user: { type: 'string', default: 'demo' },
  },
});
if (!values.incident) throw new Error('say --incident <id> (make_bench_incident prints it)');
const { browser, context, page: signIn } = await signedIn(values.url, values.user);
await signIn.close();
// Timed in the page itself, as the DOM changes (not when a poll from here notices): performance.now() counts
// from the navigation's start.
await context.addInitScript(() => {
  const seen = { strip: null, lines: null, count: 0 };
  window.__timings = seen;
  new MutationObserver(() => {
    if (seen.strip === null && document.querySelector('.verdict-strip__layers')) seen.strip = performance.now();
    const count = document.querySelectorAll('.finding__line').length;
    if (count !== seen.count) {
      seen.count = count;
      seen.lines = performance.now();
    }
  }).observe(document, { childList: true, subtree: true });
});

const strip = [];
const lines = [];
for (let run = 0; run < Number(values.runs); run += 1) {
  const page = await context.newPage();
  await page.goto(`/incidents/${values.incident}`, { waitUntil: 'commit' });
  await page.locator('.verdict-strip__layers').waitFor({ timeout: 60_000 });
  await page.locator('.finding__line').last().waitFor({ timeout: 60_000 });
  await page.waitForLoadState('networkidle');
  const { strip: stripAt, lines: linesAt, count: findings } = await page.evaluate(() => window.__timings);
  strip.push(stripAt);
  lines.push(linesAt);
  console.log(`run ${run + 1}${run === 0 ? ' (cold)' : ''}: verdict strip ${stripAt.toFixed(0)} ms, ${findings} finding lines ${linesAt.toFixed(0)} ms`);
  await page.close();
}
const summary = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(0)} ms, median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, max ${sorted.at(-1).toFixed(0)} ms`;
};
console.log(`verdict strip visible: ${summary(strip)}`);
console.log(`every finding line drawn: ${summary(lines)}`);
await browser.close();

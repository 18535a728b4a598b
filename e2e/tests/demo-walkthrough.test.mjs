// The demo's receive-window incident, investigated end to end as a team would, at 1280×800: its recorded
// evidence (demo/receive-window, the files `make demo` loads) uploaded through the page, every step of the
// checklist decided (two suggestions confirmed, two overridden, each with a rationale), the postmortem
// exported as Markdown and as a printable page, and full-page screenshots of the incident, a connection's
// Stevens graph, its packet list and a bisect.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { downloadText, launch, openPrintable, openUntil, screenshot, signIn, USERS } from './browser.mjs';
import { plantedRegression } from './git-repo.mjs';

const DEMO = fileURLToPath(new URL('../../demo/', import.meta.url));
const SPEC = JSON.parse(readFileSync(join(DEMO, 'incidents.json'), 'utf8')).find((i) => i.folder === 'receive-window');
const FILES = readdirSync(join(DEMO, 'receive-window'))
  .sort()
  .map((name) => join(DEMO, 'receive-window', name));

const NEIGHBOURS_WHY = 'Both hosts’ interfaces counted no drops between the ip -s link snapshots; 4.78 MiB in 10 s.';
const APPLICATION_WHY = 'The client pins SO_RCVBUF at 65,536 bytes: the window cannot grow past it at 155 ms RTT.';

let browser;
let page;
let context;
let incidentUrl;
let repo;
const errors = [];

/** A small kernel-like history: the change that halves the window is commit 12 of 16. */
function buildRepository() {
  return plantedRegression({
    commits: 16,
    regression: 12,
    title: 'tcp: get rid of sysctl_tcp_adv_win_scale',
    file: 'adv_win_scale',
    good: '1',
    bad: 'ratio',
    routine: 'net: routine change',
    goodTag: 'v6.5.13',
    badTag: 'v6.6.10',
  });
}

before(async () => {
  repo = buildRepository();
  browser = await launch();
  ({ context, page } = await signIn(browser, USERS.owner));
  await page.setViewportSize({ width: 1280, height: 800 });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
});

after(async () => {
  await browser?.close();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

const step = (name) => page.getByRole('region', { name, exact: true });
const strip = () => page.getByRole('region', { name: 'Verdicts by layer' });
/** One layer's cell of the verdict strip (its reason may name other layers: find it by its own link). */
const cell = (layer) =>
  strip()
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: layer, exact: true }) });

test('the demo evidence, uploaded through the page, is analysed into the four suggestions', async () => {
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill(SPEC.title);
  await page.getByLabel('Symptom').fill(SPEC.symptom);
  await page.getByLabel('Severity').selectOption(SPEC.severity);
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: SPEC.title }).waitFor();
  incidentUrl = page.url();
  await page.getByLabel('Upload evidence').setInputFiles(FILES);

  // Every file analysed, the two captures matched across the NAT: the network is suggested cleared, the
  // application and the kernel suspect.
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await timeline
    .getByRole('button', { name: new RegExp(`${FILES.length} files uploaded by olive · ${FILES.length} analysed`) })
    .waitFor({ timeout: 150_000 });
  await cell('Network').getByText('Cleared').waitFor({ timeout: 60_000 });
  for (const layer of ['Application', 'Kernel']) {
    await cell(layer).getByText('Suspect').waitFor({ timeout: 60_000 });
  }
  // Each card says what its file shows, in words.
  const card = (name) => page.getByRole('article').filter({ has: page.getByRole('heading', { name, exact: true }) });
  await card('kernel-versions.txt').getByText('kernel 6.5.13 → 6.6.10').waitFor();
  await card('client-nstat-after.txt').getByText('nstat: +0 retransmitted segments of 1,596 sent').waitFor();
  await card('client.pcap').getByText('4,904 packets, 4.87 MiB over 10.3 s, 1 TCP connection').waitFor();
  // The strace's deadline seen through both captures is one line, naming every file.
  // (Waited for: the checklist is worked out again as each analysis lands, and the line may first show an earlier
  // pass's files for a moment.)
  const application = step('Application');
  const deadline = application.getByRole('button', { name: /The client's 10\.0 s deadline closed 1 connection/ });
  await application
    .getByRole('button', {
      name: /The client's 10\.0 s deadline closed 1 connection.*client\.strace and client\.pcap on client \(client\), server\.pcap on server/s,
    })
    .waitFor({ timeout: 30_000 });
  assert.equal(await deadline.count(), 1);
});

test('each step gets a verdict with a rationale: suggestions confirmed or overridden, all on the timeline', async () => {
  // Neighbours: no suggestion (no link speeds) — a person clears it, from the keyboard.
  await step('Neighbours').getByRole('button', { name: 'Change verdict for Neighbours' }).focus();
  await page.keyboard.press('Enter');
  const verdict = step('Neighbours').getByLabel('Verdict');
  await verdict.selectOption('cleared');
  await step('Neighbours').getByLabel('Rationale').fill(NEIGHBOURS_WHY);
  await step('Neighbours').getByLabel('Rationale').press('Control+Enter');
  await step('Neighbours').getByText(NEIGHBOURS_WHY).waitFor();

  // Network: the suggestion (cleared: nothing lost between the capture points) confirmed as it stands.
  await step('Network').getByRole('button', { name: 'Review suggestion for Network' }).click();
  assert.equal(await step('Network').getByLabel('Verdict').inputValue(), 'cleared');
  assert.match(await step('Network').getByLabel('Rationale').inputValue(), /^Nothing was lost between the two capture/);
  await step('Network').getByRole('button', { name: 'Save verdict' }).click();

  // Application: suggested suspect, overridden to culprit with the team's own words.
  await step('Application').getByRole('button', { name: 'Review suggestion for Application' }).click();
  await step('Application').getByLabel('Verdict').selectOption('culprit');
  await step('Application').getByLabel('Rationale').fill(APPLICATION_WHY);
  await step('Application').getByRole('button', { name: 'Save verdict' }).click();

  // Kernel: the suggestion (suspect) confirmed.
  await step('Kernel').getByRole('button', { name: 'Review suggestion for Kernel' }).click();
  assert.equal(await step('Kernel').getByLabel('Verdict').inputValue(), 'suspect');
  await step('Kernel').getByRole('button', { name: 'Save verdict' }).click();

  const expected = { Neighbours: 'Cleared', Network: 'Cleared', Application: 'Culprit', Kernel: 'Suspect' };
  for (const [layer, label] of Object.entries(expected)) {
    // Decided, no longer suggested: the cell shows the team's verdict and the first sentence of its rationale.
    await cell(layer).getByText('Suggested').waitFor({ state: 'detached' });
    await cell(layer).getByText(label, { exact: true }).waitFor();
  }
  await cell('Application').getByText(/^The client pins SO_RCVBUF at 65,536 bytes/).waitFor();
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await timeline.getByText(/Application: Not looked at → Culprit — The client pins SO_RCVBUF/).waitFor();
  await timeline.getByText(/Kernel: Not looked at → Suspect — dfa2f0483360/).waitFor();

  // The incident as the team leaves it: owned, mitigated.
  await page.getByLabel('Owner').selectOption({ label: 'olive' });
  await page.getByLabel('Status').selectOption('mitigated');
  await timeline.getByText(/mitigated/i).first().waitFor();
  await screenshot(page, 'demo-01-incident');
});

test('the postmortem exports the checklist, its chains of evidence, the pinned note and the fixes', async () => {
  await page.getByRole('region', { name: 'Timeline' }).getByLabel('Add note').fill(SPEC.note);
  await page.getByRole('region', { name: 'Timeline' }).getByLabel('Add note').press('Enter');
  const note = page.locator('li.event--note').filter({ hasText: 'Timeouts started with the kernel rollout' }).first();
  await note.getByRole('button', { name: 'Pin' }).click();
  await page.getByRole('heading', { name: 'Key evidence' }).waitFor();

  const markdown = await downloadText(page, page.getByRole('link', { name: 'Download Markdown' }));
  assert.match(markdown, new RegExp(`^# Postmortem: ${SPEC.title}`));
  assert.match(markdown, /\*\*Severity:\*\* SEV2 · \*\*Status:\*\* mitigated/);
  // From when it started to when it was first marked mitigated.
  assert.match(markdown, /\*\*Impact window:\*\* \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC → \d{4}-\d\d-\d\d .*until first marked mitigated/);
  assert.match(markdown, /### 1\. Blame the neighbours: \*\*cleared\*\*/);
  assert.match(markdown, new RegExp(NEIGHBOURS_WHY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.match(markdown, /### 2\. Blame the network: \*\*cleared\*\*/);
  assert.match(markdown, /saw the same 4,788,539 bytes of sequence space/);
  assert.match(markdown, /### 3\. Blame the application: \*\*culprit\*\*/);
  assert.match(markdown, /### 4\. Blame the kernel: \*\*suspect\*\*/);
  assert.match(markdown, /Throughput capped by a 80,480-byte receive window on 1 transfer: 52\d\.\d KB\/s at 155 ms RTT/);
  assert.match(markdown, /Timeouts started with the kernel rollout/);
  assert.match(markdown, /`receive\.buffer\.bytes=-1`/);
  assert.match(markdown, /`a kernel ≥ 6\.6\.45`/);

  const printable = await openPrintable(page);
  for (const heading of ['Summary', 'Checklist', 'Key findings', 'Pinned timeline events']) {
    await printable.getByRole('heading', { name: heading }).waitFor();
  }
  assert.match(await printable.locator('body').innerText(), /Blame the application: culprit/);
  await printable.setViewportSize({ width: 1280, height: 800 });
  await screenshot(printable, 'demo-02-postmortem');
  await printable.close();
});

test('a capture finding leads to its connection’s Stevens graph and its packets', async () => {
  const network = step('Network');
  const open = network.getByRole('link', { name: /^Open connection 0/ }).first();
  await openUntil(network, open);
  await open.click();
  await page.getByRole('heading', { name: /^Connection 0:/ }).waitFor();
  await page.getByRole('img', { name: /^Time-sequence graph: [\d,]+ data segments, [\d,]+ ACKs; SYN at 0\.000 s/ }).waitFor({
    timeout: 60_000,
  });
  await page.getByText(/Data from the server: 3,3\d\d segments/).waitFor();
  await screenshot(page, 'demo-03-connection-stevens');

  await page.getByRole('link', { name: /^Show packets/ }).click();
  const table = page.locator('table.packets__table');
  await table.waitFor({ timeout: 60_000 });
  await page.getByText(/^Page 1: packets 1–100/).waitFor();
  const first = await table.locator('tbody tr').first().innerText();
  assert.match(first, /client → server\s+SYN/);
  await screenshot(page, 'demo-04-packet-list');
});

test('a bisect between the two kernels, started from the kernel step, names the first bad commit', async () => {
  await page.goto(incidentUrl);
  await step('Kernel').getByRole('button', { name: 'Start a bisect' }).click();
  const form = page.getByRole('form', { name: 'Start a bisect' });
  await form.waitFor();
  await form.getByLabel('Repository').fill(repo);
  // Prefilled from the kernel versions in the evidence.
  assert.equal(await form.getByLabel('Good ref').inputValue(), 'v6.5.13');
  assert.equal(await form.getByLabel('Bad ref').inputValue(), 'v6.6.10');
  await form.getByLabel('Reproducer command').fill('test "$(cat adv_win_scale)" = 1');
  await form.getByLabel('Step timeout').fill('60');
  await form.getByLabel('Step timeout').press('Enter');
  await page.waitForURL(/\/incidents\/\d+\/bisects\/\d+$/);
  const result = page.getByRole('article', { name: 'First bad commit' });
  await result.getByText('tcp: get rid of sysctl_tcp_adv_win_scale').waitFor({ timeout: 150_000 });
  await screenshot(page, 'demo-05-bisect');
  assert.deepEqual(errors, []);
  await context.close();
});

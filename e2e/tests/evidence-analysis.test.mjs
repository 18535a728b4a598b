// In the browser: a capture's connections and a Stevens graph; then a receive-window incident's
// kernel story (strace + two kernel versions) read from the kernel step of the checklist.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ARTIFACTS, launch, openUntil, screenshot, signIn, USERS } from './browser.mjs';

const data = (name) => fileURLToPath(new URL(`./data/${name}`, import.meta.url));
const CAPTURE = data('loopback-scenarios.pcap');
const SEED000 = ['seed000/before.txt', 'seed000/after.txt', 'seed000/client.strace'].map(data);
let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

async function uploadAndWait(page, path, name) {
  await page.getByLabel('Upload evidence').setInputFiles(path);
  const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name, exact: true }) });
  await card.getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });
  return card;
}

test('a capture’s connections, a zero-window connection’s graph, and a receive-window incident’s kernel step', async () => {
  const { context, page } = await signIn(browser, USERS.owner);
  await page.getByRole('link', { name: 'New incident' }).click();
  await page.getByLabel('Title').fill('Kafka reads time out after the kernel upgrade');
  await page.getByRole('button', { name: 'Create incident' }).click();
  await page.getByRole('heading', { name: 'Kafka reads time out after the kernel upgrade' }).waitFor();
  const incidentUrl = page.url();

  // The capture: its card links to its connection table.
  const card = await uploadAndWait(page, CAPTURE, 'loopback-scenarios.pcap');
  await card.getByRole('link', { name: 'Connections (4)' }).click();
  const table = page.getByRole('table', { name: 'Connections' });
  await table.waitFor();
  assert.equal(await table.getByRole('row').count(), 1 + 4);

  await page.getByRole('button', { name: 'Zero window' }).click();
  await page.getByText('1 connection', { exact: true }).waitFor();
  assert.match(page.url(), /flag=zero_window/);
  assert.equal(await table.getByRole('row').count(), 1 + 1);
  await screenshot(page, '10-connections-zero-window');

  await table.getByRole('link', { name: /^Connection 0:/ }).click();
  await page.getByRole('heading', { name: /Connection 0:/ }).waitFor();
  await page.getByRole('table', { name: 'Each direction' }).getByText('Zero windows').waitFor();
  const graph = page.getByRole('img', { name: /Time-sequence graph/ });
  await graph.locator('canvas').waitFor({ timeout: 30_000 });
  const box = await graph.locator('canvas').boundingBox();
  assert.ok(box && box.width > 300 && box.height > 200, `the graph canvas is drawn (${JSON.stringify(box)})`);
  await screenshot(page, '11-connection-stevens-graph');

  // The sender switch asks for the other side's data.
  await page.getByLabel('the client').check();
  await page.getByText(/Data from the client/).waitFor({ timeout: 30_000 });

  // The receive-window incident: before and after kernels, then the client's strace.
  await page.goto(incidentUrl);
  for (const [path, name] of SEED000.map((p) => [p, p.split('/').at(-1)])) {
    await uploadAndWait(page, path, name);
  }
  // The answer first: the verdict strip sits above the checklist, and the kernel's findings are folded.
  const strip = page.getByRole('region', { name: 'Verdicts by layer' });
  await strip.getByRole('link', { name: 'Kernel' }).waitFor();
  const kernel = page.getByRole('region', { name: 'Kernel' });
  const stripBox = await strip.boundingBox();
  const kernelBox = await kernel.boundingBox();
  assert.ok(stripBox && kernelBox && stripBox.y < kernelBox.y, 'the verdict strip comes before the checklist');
  await kernel.getByRole('button', { name: /known network change/ }).waitFor({ timeout: 60_000 });
  const windows = kernel.getByRole('table', { name: 'Receive window per kernel' });
  assert.equal(await windows.count(), 0, 'folded: no table before the line is opened');
  await openUntil(kernel, windows);
  await windows.getByRole('cell', { name: '65,536 B' }).waitFor();
  await windows.getByRole('cell', { name: '32,768 B' }).waitFor();

  const changes = kernel.getByRole('table', { name: 'Known changes' });
  await changes.getByText('tcp: get rid of sysctl_tcp_adv_win_scale').waitFor();
  const source = changes.getByRole('link', { name: /git\.kernel\.org/ }).first();
  assert.match(await source.getAttribute('href'), /^https:\/\/git\.kernel\.org\//);
  assert.equal(await source.getAttribute('rel'), 'noopener noreferrer');
  assert.equal(await source.getAttribute('target'), '_blank');
  await kernel.scrollIntoViewIfNeeded();
  await screenshot(page, '12-kernel-step-window-model');
  await kernel.screenshot({ path: join(ARTIFACTS, '12b-kernel-step-close-up.png') });

  // A lines reference opens the strace line behind SO_RCVBUF, as text.
  const application = page.getByRole('region', { name: 'Application' });
  await openUntil(application, application.getByRole('button', { name: 'Show line 2' }));
  await application.getByRole('button', { name: 'Show line 2' }).first().click();
  await application.getByText('setsockopt(7, SOL_SOCKET, SO_RCVBUF, [65536], 4) = 0', { exact: false }).first().waitFor();
  await screenshot(page, '13-application-strace-lines');
  await application.screenshot({ path: join(ARTIFACTS, '13b-application-step-close-up.png') });

  // Correct (here: confirm) the capture's kind: the card runs the analysis again and lands on Done.
  const captureCard = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'loopback-scenarios.pcap' }) });
  await captureCard.getByText('Details', { exact: true }).click(); // the kind is among the card's details
  await captureCard.getByLabel('Evidence kind').selectOption('capture');
  await captureCard.getByRole('button', { name: 'Analyse again' }).click();
  await captureCard.getByText(/Queued|Running|Waiting for a worker/).first().waitFor({ timeout: 10_000 }).catch(() => {});
  await captureCard.getByText('Done', { exact: true }).waitFor({ timeout: 60_000 });
  await captureCard.getByRole('link', { name: 'Connections (4)' }).waitFor();

  // A finding's connection reference opens the connection with its time range shaded (the new
  // analysis made new findings: their lines are folded again).
  await openUntil(application, application.getByRole('link', { name: 'Open connection 0' }));
  await application.getByRole('link', { name: 'Open connection 0' }).first().click();
  await page.getByRole('heading', { name: /Connection 0:/ }).waitFor();
  assert.match(page.url(), /from=\d+(\.\d+)?&to=\d+/);
  await page.getByText('The shaded band is the time range the finding points at.', { exact: false }).waitFor();
  await page.getByRole('img', { name: /Time-sequence graph/ }).locator('canvas').waitFor();
  await screenshot(page, '14-finding-connection-highlight');

  // 100,000 segments (a synthetic answer from the same endpoint): drawn on a canvas in well under
  // a few seconds, and a drag-zoom still answers at once.
  const n = 100_000;
  const big = {
    connection: 0,
    sender: 'client',
    t0: 1795294294.468122,
    base_seq: 1,
    window_scale: 7,
    seg_time: Array.from({ length: n }, (_, i) => i / 10_000),
    seg_seq: Array.from({ length: n }, (_, i) => i * 1448),
    seg_len: Array.from({ length: n }, () => 1448),
    seg_retransmission: Array.from({ length: n }, (_, i) => i % 997 === 0),
    ack_time: Array.from({ length: n / 2 }, (_, i) => (2 * i + 1) / 10_000),
    ack_seq: Array.from({ length: n / 2 }, (_, i) => 2 * i * 1448),
    ack_window_edge: Array.from({ length: n / 2 }, (_, i) => 2 * i * 1448 + 262_144),
    segments_total: n,
    acks_total: n / 2,
    stride: 1,
    error: null,
  };
  await page.route('**/time-sequence/**', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(big) }),
  );
  const started = Date.now();
  await page.getByLabel('the client').check();
  await page.getByText(/Data from the client: 100,000 segments, 50,000 ACKs, 101 retransmissions/).waitFor();
  await page.getByRole('img', { name: /100,000 data segments/ }).locator('canvas').waitFor();
  const drawMs = Date.now() - started;
  assert.ok(drawMs < 5_000, `100k points drawn in ${drawMs} ms`);
  // Drag across the plot area (uPlot's overlay), in the viewport.
  const overlay = page.getByRole('img', { name: /100,000 data segments/ }).locator('.u-over');
  await overlay.scrollIntoViewIfNeeded();
  const area = await overlay.boundingBox();
  const caption = page.getByText(/^Showing .* after the first packet$/);
  const before = await caption.textContent();
  const zoomStarted = Date.now();
  await page.mouse.move(area.x + area.width * 0.3, area.y + area.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(area.x + area.width * 0.4, area.y + area.height * 0.5, { steps: 5 });
  await page.mouse.up();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForFunction(
    (text) => [...document.querySelectorAll('figcaption')].some((c) => c.textContent.startsWith('Showing') && c.textContent !== text),
    before,
  );
  const zoomMs = Date.now() - zoomStarted;
  assert.ok(zoomMs < 2_000, `drag-zoom answered in ${zoomMs} ms`);
  const [, lo, hi] = (await caption.textContent()).match(/Showing ([\d.]+) s to ([\d.]+) s/).map(Number);
  assert.ok(hi - lo < 3, `zoomed in to ${lo}–${hi} s (was ${before})`);
  console.log(`# 100k points: drawn in ${drawMs} ms, zoomed in ${zoomMs} ms`);
  await screenshot(page, '15-stevens-100k-points-zoomed');

  await context.close();
});

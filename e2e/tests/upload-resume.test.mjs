// A large upload whose connection drops at ~90 %: the browser resumes from the part the server kept, says so
// while it waits, and the evidence's sha256 is the file's. The drop is real: a TCP proxy between the browser
// and the console cuts the connection carrying the PATCH, then refuses connections for a moment.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_URL, launch, screenshot, USERS } from './browser.mjs';

const SIZE = 48 * 1024 * 1024 + 4321;
let browser;
let work;

before(async () => {
  browser = await launch();
  work = mkdtempSync(join(tmpdir(), 'wdn-resume-'));
});

after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * Forwards to the console; once `cutAt` bytes of the first PATCH passed, the network goes away: every open
 * connection is cut (the browser's idle keep-alive ones too) and new ones are refused for `downMs`.
 */
function flakyProxy({ cutAt, downMs }) {
  const target = new URL(BASE_URL);
  const state = { patchBytes: 0, afterCut: 0, cut: false, downUntil: 0 };
  const open = new Set();
  const server = createServer((client) => {
    if (Date.now() < state.downUntil) {
      client.destroy();
      return;
    }
    open.add(client);
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    let patching = false;
    client.on('data', (chunk) => {
      if (chunk.subarray(0, 6).toString() === 'PATCH ') patching = true;
      else if (/^[A-Z]+ \//.test(chunk.subarray(0, 8).toString())) patching = false;
      if (patching) state.patchBytes += chunk.length;
      if (patching && state.cut) state.afterCut += chunk.length;
      // Back-pressure: read from the browser only as fast as the console takes it, so "90 % passed the
      // proxy" is close to "90 % reached the server".
      if (!upstream.write(chunk)) client.pause();
      if (patching && !state.cut && state.patchBytes >= cutAt) {
        state.cut = true;
        state.downUntil = Date.now() + downMs;
        for (const socket of open) socket.destroy();
        upstream.destroy();
      }
    });
    upstream.on('drain', () => client.resume());
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, state, url: `http://127.0.0.1:${server.address().port}` }));
  });
}

test('an upload cut off at 90 % resumes where the server kept it and arrives whole', async () => {
  const data = randomBytes(SIZE);
  const path = join(work, 'big-capture.bin');
  writeFileSync(path, data);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const proxy = await flakyProxy({ cutAt: Math.floor(SIZE * 0.9), downMs: 2500 });
  try {
    const context = await browser.newContext({ baseURL: proxy.url, viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    await page.goto('/');
    await page.getByLabel('Username').fill(USERS.owner.username);
    await page.getByLabel('Password').fill(USERS.owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'New incident' }).click();
    await page.getByLabel('Title').fill('Resume after a dropped connection');
    await page.getByRole('button', { name: 'Create incident' }).click();
    await page.getByRole('heading', { name: 'Resume after a dropped connection' }).waitFor();
    const incidentId = page.url().match(/incidents\/(\d+)/)[1];

    await page.getByLabel('Upload evidence').setInputFiles(path);
    const resuming = page.getByText(/Connection lost: resuming where the server stopped/);
    await resuming.waitFor({ timeout: 60_000 });
    await screenshot(page, '07-upload-resuming');
    assert.ok(proxy.state.cut, 'the proxy cut the PATCH');

    const card = page.getByRole('article').filter({ hasText: 'big-capture.bin' });
    await card.waitFor({ timeout: 120_000 });
    const evidence = await page.evaluate(async (id) => {
      const response = await fetch(`/api/incidents/${id}/evidence/`);
      return response.json();
    }, incidentId);
    assert.equal(evidence.length, 1);
    assert.equal(evidence[0].size, SIZE);
    assert.equal(evidence[0].sha256, sha256);
    // Resumed, not sent again from the start: after the cut only the rest went, from the last whole part kept.
    assert.ok(proxy.state.afterCut < SIZE * 0.4, `sent ${proxy.state.afterCut} of ${SIZE} bytes again`);
    await context.close();
  } finally {
    proxy.server.close();
  }
});

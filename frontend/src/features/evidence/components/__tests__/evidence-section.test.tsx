import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Evidence } from '@/api/types';
import { makeEvidence, makeRun } from '@/testing/fixtures';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { EvidenceSection } from '../evidence-section';

interface ProgressInit {
  loaded: number;
  total: number;
  lengthComputable: boolean;
}

/** A stand-in for XMLHttpRequest (what tus-js-client sends with): the test drives its progress and its answer. */
class FakeXhr {
  static instances: FakeXhr[] = [];
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  responseText = '';
  responseHeaders: Record<string, string> = {};
  aborted = false;
  withCredentials = false;
  upload: { onprogress: ((event: ProgressInit) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: ((error: unknown) => void) | null = null;
  onabort: (() => void) | null = null;

  constructor() {
    FakeXhr.instances.push(this);
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  getResponseHeader(name: string): string | null {
    const key = Object.keys(this.responseHeaders).find((k) => k.toLowerCase() === name.toLowerCase());
    return key === undefined ? null : (this.responseHeaders[key] ?? null);
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ loaded, total, lengthComputable: true });
  }
  respond(status: number, body: unknown = '', headers: Record<string, string> = {}) {
    this.status = status;
    this.responseText = typeof body === 'string' ? body : JSON.stringify(body);
    this.responseHeaders = { 'Tus-Resumable': '1.0.0', ...headers };
    this.onload?.();
  }
}

const INCIDENT = 4;
const UPLOAD_ID = '6f1c1d0e-8d3a-4b52-9d55-0b0a3e3c2a11';
const LOCATION = `http://localhost:3000/api/incidents/${String(INCIDENT)}/evidence/uploads/${UPLOAD_ID}`;
const file = () => new File([new Uint8Array(1000)], 'server side.pcap', { type: 'application/vnd.tcpdump.pcap' });

/** This test's requests: a previous test's page may end its own upload (a DELETE) late on a busy machine. */
function requestsSent() {
  return FakeXhr.instances.filter((xhr) => xhr.method !== 'DELETE');
}

/** This test's n-th request other than a DELETE (see ``requestsSent``). */
async function xhrNumber(n: number): Promise<FakeXhr> {
  await waitFor(() => {
    expect(requestsSent().length).toBeGreaterThan(n);
  });
  const xhr = requestsSent()[n];
  if (!xhr) throw new Error(`no request #${String(n)}`);
  return xhr;
}

/** Drop a file, let the upload be created (tus POST → 201 Location), and return the PATCH that sends it. */
async function startUpload(evidence: Evidence[] = []) {
  const user = userEvent.setup();
  const api = mockApi({
    [`GET /api/incidents/${String(INCIDENT)}/evidence/`]: () => json(evidence),
    [`GET /api/incidents/${String(INCIDENT)}/evidence/deleted/`]: () => json([]),
  });
  const view = renderWithProviders(<EvidenceSection incidentId={INCIDENT} />);
  await screen.findByText('No evidence uploaded yet.');
  await user.upload(screen.getByLabelText('Upload evidence'), file());
  const create = await xhrNumber(0);
  act(() => {
    create.respond(201, '', { Location: LOCATION });
  });
  const xhr = await xhrNumber(1);
  return { user, create, xhr, api, view };
}

describe('EvidenceSection uploads', () => {
  beforeEach(async () => {
    // The previous test's upload ends (DELETE) when its page unmounts, a tick later: let it, then forget it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    FakeXhr.instances = [];
    localStorage.clear();
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    setCsrfCookie('csrf-up');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('creates a resumable upload, sends the file with the CSRF token and moves the progress bar', async () => {
    const { create, xhr } = await startUpload();

    expect(create.method).toBe('POST');
    expect(create.url).toBe(`http://localhost:3000/api/incidents/${String(INCIDENT)}/evidence/uploads/`);
    expect(create.headers['Tus-Resumable']).toBe('1.0.0');
    expect(create.headers['Upload-Length']).toBe('1000');
    expect(create.headers['Upload-Metadata']).toContain(`filename ${btoa('server side.pcap')}`);
    expect(create.headers['X-CSRFToken']).toBe('csrf-up');

    expect(xhr.method).toBe('PATCH');
    expect(xhr.url).toBe(LOCATION);
    expect(xhr.headers['Upload-Offset']).toBe('0');
    expect(xhr.headers['Content-Type']).toBe('application/offset+octet-stream');
    expect(xhr.headers['X-CSRFToken']).toBe('csrf-up');
    expect(xhr.body).toBeInstanceOf(Blob);

    const bar = screen.getByRole('progressbar', { name: 'Uploading server side.pcap' });
    expect(bar).toHaveAttribute('aria-valuenow', '0');
    act(() => {
      xhr.progress(250, 1000);
    });
    expect(bar).toHaveAttribute('aria-valuenow', '25');
    expect(screen.getByText('25%')).toBeInTheDocument();
    expect(screen.getByText('250 B of 1000 B')).toBeInTheDocument();
    expect(screen.getByText(/ [KMG]B\/s$/)).toBeInTheDocument();
    act(() => {
      xhr.progress(730, 1000);
    });
    expect(bar).toHaveAttribute('aria-valuenow', '73');
  });

  it('replaces the upload with the evidence card when the last byte is in', async () => {
    const uploaded = makeEvidence({ id: 21, filename: 'server side.pcap', analysis: makeRun({ status: 'queued' }) });
    const { xhr } = await startUpload();
    mockApi({
      [`GET /api/incidents/${String(INCIDENT)}/evidence/`]: () => json([uploaded]),
      [`GET /api/incidents/${String(INCIDENT)}/evidence/deleted/`]: () => json([]),
      [`GET /api/incidents/${String(INCIDENT)}/evidence/uploads/${UPLOAD_ID}/`]: () =>
        json({ id: UPLOAD_ID, filename: 'server side.pcap', length: 1000, offset: 1000, expires: null, evidence: 21 }),
      [`GET /api/incidents/${String(INCIDENT)}/evidence/21/`]: () => json(uploaded),
    });

    act(() => {
      xhr.progress(1000, 1000);
      xhr.respond(204, '', { 'Upload-Offset': '1000' });
    });

    expect(await screen.findByRole('article', { name: 'server side.pcap' })).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Uploading server side.pcap' })).not.toBeInTheDocument();
  });

  it('says it is resuming when the connection drops, then sends the rest from the offset the server kept', async () => {
    const { xhr } = await startUpload();
    act(() => {
      xhr.progress(900, 1000);
      xhr.onerror?.(new Error('network'));
    });
    expect(
      await screen.findByText(/Connection lost: resuming where the server stopped \(attempt 1\)/),
    ).toBeInTheDocument();

    const head = await xhrNumber(2);
    expect(head.method).toBe('HEAD');
    act(() => {
      head.respond(200, '', { 'Upload-Offset': '512', 'Upload-Length': '1000' });
    });
    const rest = await xhrNumber(3);
    expect(rest.method).toBe('PATCH');
    expect(rest.headers['Upload-Offset']).toBe('512');
    act(() => {
      rest.progress(100, 488);
    });
    const bar = screen.getByRole('progressbar', { name: 'Uploading server side.pcap' });
    expect(bar).toHaveAttribute('aria-valuenow', '61');
    expect(screen.queryByText(/resuming/)).not.toBeInTheDocument();
  });

  it('cancels an upload and ends it on the server', async () => {
    const { xhr, user } = await startUpload();
    act(() => {
      xhr.progress(100, 1000);
    });

    const row = screen.getByRole('listitem', { name: 'Upload of server side.pcap' });
    const sentBefore = FakeXhr.instances.length;
    await user.click(within(row).getByRole('button', { name: 'Cancel' }));

    expect(xhr.aborted).toBe(true);
    expect(await within(row).findByText('Upload cancelled.')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    await waitFor(() => {
      expect(FakeXhr.instances.slice(sentBefore).map((x) => `${x.method} ${x.url}`)).toContain(`DELETE ${LOCATION}`);
    });

    await user.click(within(row).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('listitem', { name: 'Upload of server side.pcap' })).not.toBeInTheDocument();
  });

  it('shows the server’s message when the file is too large (413), without retrying', async () => {
    const user = userEvent.setup();
    mockApi({
      [`GET /api/incidents/${String(INCIDENT)}/evidence/`]: () => json([]),
      [`GET /api/incidents/${String(INCIDENT)}/evidence/deleted/`]: () => json([]),
    });
    renderWithProviders(<EvidenceSection incidentId={INCIDENT} />);
    await screen.findByText('No evidence uploaded yet.');
    await user.upload(screen.getByLabelText('Upload evidence'), file());
    const create = await xhrNumber(0);
    act(() => {
      create.respond(413, { detail: 'The file is 1,000 bytes; the limit is 10 bytes.' });
    });

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Upload failed: The file is 1,000 bytes; the limit is 10 bytes.',
    );
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(requestsSent()).toHaveLength(1);
  });

  it('says the team is out of space (507) without retrying', async () => {
    const { xhr } = await startUpload();
    act(() => {
      xhr.respond(507, { detail: 'Your team would pass its quota.' });
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('Upload failed: Your team would pass its quota.');
    expect(requestsSent()).toHaveLength(2);
  });
});

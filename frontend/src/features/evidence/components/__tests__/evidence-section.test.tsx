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

/** A stand-in for XMLHttpRequest: the test drives its progress events and its answer. */
class FakeXhr {
  static instances: FakeXhr[] = [];
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  responseText = '';
  aborted = false;
  upload: { onprogress: ((event: ProgressInit) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
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
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

const INCIDENT = 4;
const file = () => new File([new Uint8Array(1000)], 'server side.pcap', { type: 'application/vnd.tcpdump.pcap' });

async function startUpload(evidence: Evidence[] = []) {
  const user = userEvent.setup();
  const api = mockApi({ [`GET /api/incidents/${INCIDENT}/evidence/`]: () => json(evidence) });
  const view = renderWithProviders(<EvidenceSection incidentId={INCIDENT} />);
  await screen.findByText('No evidence uploaded yet.');
  await user.upload(screen.getByLabelText('Upload evidence'), file());
  await waitFor(() => {
    expect(FakeXhr.instances).toHaveLength(1);
  });
  const xhr = FakeXhr.instances[0];
  if (!xhr) throw new Error('no XHR was made');
  return { user, xhr, api, view };
}

describe('EvidenceSection uploads', () => {
  beforeEach(() => {
    FakeXhr.instances = [];
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    setCsrfCookie('csrf-up');
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends the raw file with the CSRF token and moves the progress bar with XHR progress events', async () => {
    const { xhr } = await startUpload();

    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe(`/api/incidents/${INCIDENT}/evidence/upload/?filename=server+side.pcap`);
    expect(xhr.headers['Content-Type']).toBe('application/octet-stream');
    expect(xhr.headers['X-CSRFToken']).toBe('csrf-up');
    expect(xhr.body).toBeInstanceOf(File);

    const bar = screen.getByRole('progressbar', { name: 'Uploading server side.pcap' });
    expect(bar).toHaveAttribute('aria-valuenow', '0');

    act(() => {
      xhr.progress(250, 1000);
    });
    expect(bar).toHaveAttribute('aria-valuenow', '25');
    expect(screen.getByText('25%')).toBeInTheDocument();
    expect(screen.getByText('250 B of 1000 B')).toBeInTheDocument();
    expect(screen.getByText(/MB\/s$/)).toBeInTheDocument();

    act(() => {
      xhr.progress(730, 1000);
    });
    expect(bar).toHaveAttribute('aria-valuenow', '73');
  });

  it('replaces the upload with the evidence card when the server accepts it', async () => {
    const uploaded = makeEvidence({ id: 21, filename: 'server side.pcap', analysis: makeRun({ status: 'queued' }) });
    const { xhr, api } = await startUpload();
    // From now on the list has the new evidence.
    api.fetchMock.mockImplementation(() => Promise.resolve(json([uploaded])));

    act(() => {
      xhr.progress(1000, 1000);
      xhr.respond(201, uploaded);
    });

    expect(await screen.findByRole('article', { name: 'server side.pcap' })).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Uploading server side.pcap' })).not.toBeInTheDocument();
  });

  it('cancels an upload', async () => {
    const { xhr, user } = await startUpload();
    act(() => {
      xhr.progress(100, 1000);
    });

    const row = screen.getByRole('listitem', { name: 'Upload of server side.pcap' });
    await user.click(within(row).getByRole('button', { name: 'Cancel' }));

    expect(xhr.aborted).toBe(true);
    expect(await within(row).findByText('Upload cancelled.')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('listitem', { name: 'Upload of server side.pcap' })).not.toBeInTheDocument();
  });

  it('shows the server’s message when the file is too large (413)', async () => {
    const { xhr } = await startUpload();
    act(() => {
      xhr.progress(400, 1000);
      xhr.respond(413, { detail: 'The file is larger than the 10 GiB limit.' });
    });

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Upload failed: The file is larger than the 10 GiB limit.',
    );
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('says the connection was lost on a network error', async () => {
    const { xhr } = await startUpload();
    act(() => {
      xhr.onerror?.();
    });
    expect(await screen.findByRole('alert')).toHaveTextContent(/connection to the server was lost/);
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { TimelineEvent, TimelinePage } from '@/api/types';
import { json, mockApi, setCsrfCookie } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { renderMarkdown } from '../../lib/markdown';
import { Timeline } from '../timeline';

let nextId = 1;
function ev(kind: TimelineEvent['kind'], summary: string, extra: Partial<TimelineEvent> = {}): TimelineEvent {
  nextId += 1;
  return {
    id: nextId,
    kind,
    actor: null,
    created_at: `2026-11-20T10:00:${String(nextId % 60).padStart(2, '0')}Z`,
    summary,
    data: {},
    pinned: false,
    ...extra,
  };
}

/** One upload of ten files as the server records it: an upload, a start and a finish per file, and findings. */
function tenFileUpload(): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  for (let i = 0; i < 10; i += 1) {
    out.push(
      ev('evidence_uploaded', `Uploaded host-${String(i)}.txt (120 bytes, counters)`, {
        actor: 'olive',
        data: { evidence: i },
      }),
    );
    out.push(ev('analysis_started', `Analysing host-${String(i)}.txt`, { data: { evidence: i } }));
    out.push(ev('analysis_finished', `Analysed host-${String(i)}.txt: 1 finding(s)`, { data: { evidence: i } }));
  }
  out.push(
    ev('analysis_finished', 'Findings across the evidence recomputed: 3 findings', {
      data: { correlation: 1, evidence: null },
    }),
  );
  out.push(ev('finding', '[network] 84 retransmitted segments on client', { data: { layer: 'network' } }));
  out.push(ev('finding', '[kernel] 1 known network change between 6.5.13 → 6.6.10', { data: { layer: 'kernel' } }));
  return out;
}

function page(events: TimelineEvent[]): TimelinePage {
  return { events, next: 'n1', earlier: null, more: false };
}

describe('Timeline tools', () => {
  it("leaves one file's upload and analysis as they are", async () => {
    const one = [
      ev('evidence_uploaded', 'Uploaded client.pcap (4,096 bytes, capture)', { actor: 'olive', data: { evidence: 1 } }),
      ev('analysis_started', 'Analysing client.pcap', { data: { evidence: 1 } }),
      ev('analysis_finished', 'Analysed client.pcap: 2 findings', { data: { evidence: 1 } }),
      ev('finding', '[network] Retransmissions after 60 s of idle', { data: { evidence: 1, layer: 'network' } }),
    ];
    mockApi({ 'GET /api/incidents/3/timeline/': () => json(page(one)) });
    renderWithProviders(<Timeline incidentId={3} />);
    const log = await screen.findByRole('log', { name: 'Timeline events' });
    expect(within(log).getByText('Retransmissions after 60 s of idle')).toBeInTheDocument();
    expect(within(log).queryByRole('button', { expanded: false })).not.toBeInTheDocument();
  });

  it('folds one upload of ten files into one line that opens', async () => {
    const user = userEvent.setup();
    const events = [
      ev('incident_opened', 'Opened', { actor: 'olive' }),
      ...tenFileUpload(),
      ev('note', 'looking', { actor: 'tom' }),
    ];
    mockApi({ 'GET /api/incidents/3/timeline/': () => json(page(events)) });
    renderWithProviders(<Timeline incidentId={3} />);
    const log = await screen.findByRole('log', { name: 'Timeline events' });
    const toggle = within(log).getByRole('button', { name: /10 files uploaded by olive · 10 analysed · 2 findings/ });
    // 33 events in the fold, 3 lines in the log: opened, the upload, the note.
    expect(log.querySelectorAll(':scope > ol > li')).toHaveLength(3);
    expect(within(log).queryByText('Analysing host-3.txt')).not.toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(within(log).getByText('Analysing host-3.txt')).toBeInTheDocument();
  });

  it('filters by layer, kind and who', async () => {
    const user = userEvent.setup();
    const events = [
      ev('note', 'tom was here', { actor: 'tom' }),
      ev('verdict_changed', 'Network: Not looked at → Cleared — no loss', {
        actor: 'olive',
        data: { layer: 'network' },
      }),
      ev('finding', '[kernel] 1 known network change', { data: { layer: 'kernel' } }),
      ev('finding', '[network] SYN retransmissions on 3 connections'),
    ];
    mockApi({ 'GET /api/incidents/3/timeline/': () => json(page(events)) });
    renderWithProviders(<Timeline incidentId={3} />);
    const log = await screen.findByRole('log', { name: 'Timeline events' });

    await user.selectOptions(screen.getByLabelText('Layer'), 'network');
    expect(within(log).getByText('Network: Not looked at → Cleared — no loss')).toBeInTheDocument();
    // The layer is read from the older events' "[network]" prefix too, and shown as a label instead.
    expect(within(log).getByText('SYN retransmissions on 3 connections')).toBeInTheDocument();
    expect(within(log).queryByText('1 known network change')).not.toBeInTheDocument();
    expect(within(log).queryByText('tom was here')).not.toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Kind'), 'findings');
    expect(within(log).queryByText(/Not looked at → Cleared/)).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await user.selectOptions(screen.getByLabelText('Who'), 'tom');
    expect(within(log).getByText('tom was here')).toBeInTheDocument();
    expect(within(log).getAllByRole('listitem')).toHaveLength(1);

    await user.selectOptions(screen.getByLabelText('Kind'), 'bisects');
    expect(within(log).getByText('No event matches these filters.')).toBeInTheDocument();
  });

  it('pins an event as key evidence and shows it above the log', async () => {
    const user = userEvent.setup();
    setCsrfCookie();
    const note = ev('note', 'Rolled back the kernel: timeouts stopped', { actor: 'tom' });
    const { requests } = mockApi({
      'GET /api/incidents/3/timeline/': () => json(page([note])),
      [`PATCH /api/incidents/3/timeline/${String(note.id)}/`]: () => json({ ...note, pinned: true }),
    });
    renderWithProviders(<Timeline incidentId={3} />);
    const log = await screen.findByRole('log', { name: 'Timeline events' });
    expect(screen.queryByRole('heading', { name: 'Key evidence' })).not.toBeInTheDocument();
    await user.click(within(log).getByRole('button', { name: 'Pin' }));
    expect(await screen.findByRole('heading', { name: 'Key evidence' })).toBeInTheDocument();
    expect(requests.find((r) => r.method === 'PATCH')?.body).toEqual({ pinned: true });
    expect(within(log).getByRole('button', { name: 'Unpin' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('opens a link to an event older than the loaded pages on that event', async () => {
    const old = ev('note', 'the first clue', { actor: 'tom', id: 7 });
    mockApi({
      'GET /api/incidents/3/timeline/': () => json(page([ev('note', 'later', { actor: 'tom' })])),
      'GET /api/incidents/3/timeline/7/': () => json(old),
    });
    renderWithProviders(<Timeline incidentId={3} />, { route: '/incidents/3#event-7' });
    expect(await screen.findByRole('heading', { name: 'Linked event' })).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getByText('the first clue')).toBeInTheDocument();
    });
  });

  it('renders notes as Markdown and drops anything that could run', async () => {
    const note = ev(
      'note',
      '**timeouts** stopped after `sysctl -w net.ipv4.tcp_ecn=2`\n\n<img src=x onerror="alert(1)"><script>alert(2)</script>[x](javascript:alert(3))',
      { actor: 'tom' },
    );
    mockApi({ 'GET /api/incidents/3/timeline/': () => json(page([note])) });
    renderWithProviders(<Timeline incidentId={3} />);
    const log = await screen.findByRole('log', { name: 'Timeline events' });
    await waitFor(() => {
      expect(log.querySelector('strong')?.textContent).toBe('timeouts');
    });
    expect(log.querySelector('code')?.textContent).toBe('sysctl -w net.ipv4.tcp_ecn=2');
    expect(log.querySelector('img, script, [onerror]')).toBeNull();
    expect(log.querySelector('a[href^="javascript"]')).toBeNull();
  });

  it('shows times in one 24-hour format with UTC on hover', async () => {
    mockApi({
      'GET /api/incidents/3/timeline/': () => json(page([ev('note', 'x', { created_at: '2026-11-20T22:04:31Z' })])),
    });
    renderWithProviders(<Timeline incidentId={3} />);
    const time = (await screen.findByRole('log', { name: 'Timeline events' })).querySelector('time');
    expect(time).toHaveAttribute('title', '2026-11-20 22:04:31 UTC');
    expect(time?.textContent).toMatch(/^\d\d \w{3} 2026, \d\d:\d\d:31$/);
  });
});

describe('renderMarkdown', () => {
  it('keeps links but opens them in a new tab without the opener', () => {
    const html = renderMarkdown('[runbook](https://example.com/runbook)');
    expect(html).toContain('href="https://example.com/runbook"');
    expect(html).toContain('rel="noopener noreferrer"');
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { makeFinding } from '@/testing/fixtures';
import { json, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { FindingCard } from '../finding-card';

const SOURCE = 'https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=dfa2f0483360';

// The kernel findings of a receive-window regression, as the engine stores them (trimmed).
const KNOWN_CHANGE = makeFinding({
  id: 7,
  evidence: null,
  kind: 'kernel.known_change_in_range',
  layer: 'kernel',
  title: '1 known network change between 6.5.13 → 6.6.10: tcp: get rid of sysctl_tcp_adv_win_scale',
  refs: [
    { evidence: 21, label: 'before 6.5.13', connection: null, packets: null, time: null, lines: [1, 1] },
    { evidence: 22, label: 'after 6.6.10-1-aws', connection: null, packets: null, time: null, lines: [1, 1] },
  ],
  data: {
    before: { raw: '6.5.13', upstream: '6.5.13' },
    after: { raw: '6.6.10-1-aws', upstream: '6.6.10' },
    changes: [
      {
        id: 'dfa2f0483360',
        commit: 'dfa2f0483360d4d6f2324405464c9f281156bd87',
        title: 'tcp: get rid of sysctl_tcp_adv_win_scale',
        first_release: '6.6',
        stable_backports: [],
        direction: 'gained',
        regression: true,
        change: 'The receive window is rcvbuf x scaling_ratio.',
        symptoms: ['throughput halves'],
        fix: '697a6c8cec03 raises the initial ratio to 50 %',
        fixed_by: [{ id: '697a6c8cec03', after_has: false, before_has: false }],
        unfixed_in_after: true,
        sources: [SOURCE, 'javascript:alert(1)'],
      },
    ],
  },
});

const WINDOW_MODEL = makeFinding({
  id: 8,
  evidence: null,
  kind: 'kernel.receive_window_model',
  layer: 'kernel',
  title: '65,536 B on 6.5.13 (22 s) → 32,768 B on 6.6.10-1-aws (44 s)',
  refs: [],
  data: {
    so_rcvbuf: 65536,
    so_rcvbuf_source: 'strace (evidence 2, line 2)',
    rtt_ms: 136.64596273291926,
    rtt_source: 'a default: the RTT at which 10 MiB take 22 s through a 65,536-byte window (none in the evidence)',
    transfer_bytes: 10485760,
    transfer_source: 'a default 10 MiB transfer (none in the evidence)',
    timeout_ms: 30000,
    timeout_source: 'strace app.timeout',
    tcp_adv_win_scale: 1,
    tcp_adv_win_scale_source: 'default',
    kernels: [
      {
        role: 'before',
        kernel: '6.5.13',
        window: 65536,
        throughput_bps: 3836834.9,
        transfer_s: 22.0,
        fits_timeout: true,
      },
      {
        role: 'after',
        kernel: '6.6.10-1-aws',
        window: 32768,
        throughput_bps: 1918417.4,
        transfer_s: 43.86,
        fits_timeout: false,
      },
    ],
  },
});

describe('FindingCard', () => {
  it('shows the version range and the known changes with safe links to their sources', () => {
    renderWithProviders(<FindingCard finding={KNOWN_CHANGE} incidentId={3} />);
    expect(screen.getByText('6.5.13')).toBeInTheDocument();
    expect(screen.getByText('6.6.10-1-aws (upstream 6.6.10)')).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Known changes' });
    const row = within(table).getAllByRole('row')[1];
    expect(row).toBeDefined();
    if (!row) return;
    const cells = within(row).getAllByRole('cell');
    expect(cells[0]).toHaveTextContent('dfa2f0483360');
    expect(cells[1]).toHaveTextContent('tcp: get rid of sysctl_tcp_adv_win_scale');
    expect(cells[2]).toHaveTextContent('6.6');
    expect(cells[3]).toHaveTextContent('none');
    expect(cells[4]).toHaveTextContent('697a6c8cec03 raises the initial ratio');
    const links = within(table).getAllByRole('link');
    expect(links).toHaveLength(1);
    expect(links[0]).toHaveAttribute('href', SOURCE);
    expect(links[0]).toHaveAttribute('target', '_blank');
    expect(links[0]).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it('shows the receive-window model: its inputs, then a row per kernel', () => {
    renderWithProviders(<FindingCard finding={WINDOW_MODEL} incidentId={3} />);
    const inputs = screen.getByLabelText('Model inputs');
    expect(inputs).toHaveTextContent('SO_RCVBUF65,536 B — strace (evidence 2, line 2)');
    expect(inputs).toHaveTextContent('RTT137 ms — a default: the RTT at which 10 MiB take 22 s');
    expect(inputs).toHaveTextContent('Transfer size10,485,760 B');
    expect(inputs).toHaveTextContent('Timeout30.0 s');
    const rows = within(screen.getByRole('table', { name: 'Receive window per kernel' })).getAllByRole('row');
    expect(rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent))).toEqual([
      [],
      ['6.5.13 (before)', '65,536 B', '3.84 Mbit/s', '22.0 s', 'yes'],
      ['6.6.10-1-aws (after)', '32,768 B', '1.92 Mbit/s', '43.9 s', 'no'],
    ]);
  });

  it('links a connection reference to the connection, with its time range, and shows the numbers', () => {
    renderWithProviders(
      <FindingCard
        incidentId={3}
        finding={makeFinding({
          evidence: 11,
          kind: 'tcp.zero_window',
          refs: [
            {
              evidence: 11,
              label: 'connection 0: the client advertised a zero window 49 times',
              connection: '0',
              packets: [11, 256],
              time: [1795294294.5, 1795294300.5],
              lines: null,
            },
          ],
          data: {
            advertisements: 49,
            seconds: 2.9001,
            connections: 1,
            by_receiver: { client: 1, server: 0 },
            rows: [{ connection: 0, receiver: 'client', count: 49, seconds: 2.9001 }],
          },
        })}
      />,
    );
    expect(screen.getByRole('link', { name: 'Open connection 0' })).toHaveAttribute(
      'href',
      '/incidents/3/evidence/11/connections/0?from=1795294294.5&to=1795294300.5',
    );
    const numbers = screen.getByLabelText('Numbers');
    expect(numbers).toHaveTextContent('Advertisements49');
    expect(numbers).toHaveTextContent('Seconds2.90 s');
    expect(
      within(screen.getByRole('table', { name: 'Per connection' })).getByRole('link', { name: 'connection 0' }),
    ).toHaveAttribute('href', '/incidents/3/evidence/11/connections/0');
  });

  it('opens the lines a reference points at, fetched as JSON and shown as text, never HTML', async () => {
    const user = userEvent.setup();
    const { requests } = mockApi({
      'GET /api/incidents/3/evidence/12/lines/': () =>
        json({
          start: 1,
          end: 4,
          lines: [
            { number: 1, text: '12345 10:00:00.000100 socket(AF_INET, SOCK_STREAM) = 7' },
            { number: 2, text: '12345 10:00:00.000200 setsockopt(7, SOL_SOCKET, SO_RCVBUF, [65536], 4) = 0' },
            { number: 3, text: '<img src=x onerror=alert(1)> write(7, "<b>hi</b>", 9) = 9' },
          ],
        }),
    });
    const { container } = renderWithProviders(
      <FindingCard
        incidentId={3}
        finding={makeFinding({
          evidence: 12,
          kind: 'app.rcvbuf_pinned',
          refs: [{ evidence: 12, label: 'SO_RCVBUF fd 7', connection: null, packets: null, time: null, lines: [2, 2] }],
          data: { so_rcvbuf: 65536, sk_rcvbuf: 131072 },
        })}
      />,
    );
    const toggle = screen.getByRole('button', { name: 'Show line 2' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    const viewer = await screen.findByRole('list', { name: 'Lines 2–2' });
    expect(new URLSearchParams(requests[0]?.search).toString()).toBe('start=1&end=4');
    const items = within(viewer).getAllByRole('listitem');
    expect(items[1]).toHaveTextContent(
      '2' + '12345 10:00:00.000200 setsockopt(7, SOL_SOCKET, SO_RCVBUF, [65536], 4) = 0',
    );
    expect(items[1]).toHaveClass('lines-viewer__line--hit');
    expect(items[0]).not.toHaveClass('lines-viewer__line--hit');
    expect(within(viewer).getByText(/<img src=x onerror=alert\(1\)>/)).toBeInTheDocument();
    expect(container.querySelector('img, b')).toBeNull();
    expect(screen.getByRole('button', { name: 'Hide line 2' })).toHaveAttribute('aria-expanded', 'true');
  });

  it('brings the referenced evidence card into view and highlights it', async () => {
    const user = userEvent.setup();
    const card = document.createElement('article');
    card.id = 'evidence-12';
    card.tabIndex = -1;
    const scrollIntoView = vi.fn();
    card.scrollIntoView = scrollIntoView;
    document.body.appendChild(card);
    renderWithProviders(
      <FindingCard
        incidentId={3}
        finding={makeFinding({
          refs: [{ evidence: 12, label: 'whole file', connection: null, packets: null, time: null, lines: null }],
        })}
      />,
    );
    await user.click(screen.getByRole('link', { name: 'Show evidence' }));
    expect(scrollIntoView).toHaveBeenCalled();
    expect(card).toHaveClass('is-highlighted');
    await waitFor(() => {
      expect(document.activeElement).toBe(card);
    });
    card.remove();
  });

  it('falls back to key/value pairs for a kind it does not know', () => {
    renderWithProviders(
      <FindingCard
        incidentId={3}
        finding={makeFinding({
          kind: 'host.not_described',
          data: { TcpRetransSegs: 1200, interval_s: 60, rate: 0.015 },
        })}
      />,
    );
    const numbers = screen.getByLabelText('Numbers');
    expect(numbers).toHaveTextContent('TcpRetransSegs1,200');
    expect(numbers).toHaveTextContent('Interval1 min 0 s');
    expect(numbers).toHaveTextContent('Rate1.5 %');
  });

  it('shows the numbers with the labels and units the engine declares for the kind', () => {
    renderWithProviders(
      <FindingCard
        incidentId={3}
        finding={makeFinding({
          kind: 'host.retransmits',
          data: {
            delta: true,
            host: 'db-1',
            interval_s: 30,
            evidence: [0, 1],
            counters: { TcpRetransSegs: 3, TcpOutSegs: 200 },
            retrans_rate: 0.015,
            values: { TcpRetransSegs: { before: 10, after: 13 } },
            resets: [],
          },
        })}
      />,
    );
    const numbers = screen.getByLabelText('Numbers');
    expect(numbers).toHaveTextContent('CountersTcpRetransSegs 3 · TcpOutSegs 200');
    expect(numbers).toHaveTextContent('Retransmitted share1.5 %');
    expect(numbers).toHaveTextContent('Interval30.0 s');
    expect(numbers).toHaveTextContent('Hostdb-1');
    expect(numbers).not.toHaveTextContent('Evidence'); // declared, but not shown
    expect(numbers).not.toHaveTextContent('Difference of two snapshots'); // a key the engine no longer shows
  });

  it('makes a table of a map of rows, its keys in the first column', () => {
    renderWithProviders(
      <FindingCard
        incidentId={3}
        finding={makeFinding({
          kind: 'tcp.retransmissions',
          data: {
            by_sender: {
              client: { data_packets: 400, retransmissions: 12, rate: 0.03, bytes: 600_000 },
              server: { data_packets: 90, retransmissions: 0, rate: 0, bytes: 2_000 },
            },
          },
        })}
      />,
    );
    const rows = within(screen.getByRole('table', { name: 'By sender' })).getAllByRole('row');
    expect(rows.map((r) => Array.from(r.children).map((c) => c.textContent))).toEqual([
      ['Sender', 'Data packets', 'Retransmissions', 'Rate', 'Bytes'],
      ['client', '400', '12', '3.0 %', '586 KiB (600,000 B)'],
      ['server', '90', '0', '0.00 %', '1.95 KiB (2,000 B)'],
    ]);
  });
});

import { QueryClientProvider } from '@tanstack/react-query';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';

import { makeFinding } from '@/testing/fixtures';
import { renderWithProviders } from '@/testing/render';

import { FindingList } from '../finding-list';

const SOURCES = new Map([
  [1, { filename: 'client.pcap', host: 'kafka-7', role: 'client' }],
  [2, { filename: 'broker.pcap', host: 'broker-2', role: 'server' }],
  [3, { filename: 'nstat.txt', host: null, role: null }],
]);

// The same receive window seen from both ends (same kind, same key, two files) and a finding of another file.
const FROM_CLIENT = makeFinding({
  id: 11,
  evidence: 1,
  kind: 'tcp.receive_window_limited',
  key: '10.0.0.5:40112 > 10.0.1.9:9092',
  severity: 'medium',
  title: 'Receive window pinned 97.3 % of the time at 534.1 KB/s',
  explanation: 'The window stayed at 64 KiB for 41 s.',
  refs: [{ evidence: 1, label: 'connection 0', connection: '0', packets: [1, 900], time: [1000, 1041], lines: null }],
});
const FROM_BROKER = makeFinding({
  ...FROM_CLIENT,
  id: 12,
  evidence: 2,
  severity: 'high',
  title: 'Receive window pinned 97.5 % of the time at 534.4 KB/s',
  explanation: 'The broker sent into a 64 KiB window for 41 s.',
  refs: [
    { evidence: 2, label: 'connection 3', connection: '3', packets: [1, 910], time: [1000.2, 1041.1], lines: null },
  ],
});
const COUNTERS = makeFinding({
  id: 13,
  evidence: 3,
  kind: 'nstat.retransmits',
  key: '',
  severity: 'low',
  title: '+84 retransmitted segments in 31 s',
  explanation: 'TcpRetransSegs rose by 84.',
});

describe('FindingList', () => {
  it('shows one folded line per finding with its file and host, most severe first, and opens on click', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <FindingList findings={[COUNTERS, FROM_CLIENT, FROM_BROKER]} incidentId={3} sources={SOURCES} />,
    );
    const lines = within(screen.getByRole('list', { name: 'Findings' })).getAllByRole('button', { expanded: false });
    expect(lines).toHaveLength(2);
    // The merged line: the most severe of the two stands for it, and both vantage points are named.
    expect(lines[0]).toHaveTextContent('Receive window pinned 97.5 % of the time at 534.4 KB/s');
    expect(lines[0]).toHaveTextContent(
      'seen from 2 files: broker.pcap on broker-2 (server) and client.pcap on kafka-7 (client)',
    );
    expect(lines[1]).toHaveTextContent('+84 retransmitted segments in 31 s');
    expect(lines[1]).toHaveTextContent('nstat.txt');
    // Folded: no explanation, no kind id anywhere.
    expect(screen.queryByText('The window stayed at 64 KiB for 41 s.')).not.toBeInTheDocument();
    expect(screen.queryByText(/tcp\.receive_window_limited/)).not.toBeInTheDocument();

    const merged = lines[0];
    if (!merged) throw new Error('no merged line');
    await user.click(merged);
    expect(merged).toHaveAttribute('aria-expanded', 'true');
    const client = screen.getByRole('region', { name: 'Seen from client.pcap on kafka-7 (client)' });
    expect(client).toHaveTextContent('Receive window pinned 97.3 % of the time at 534.1 KB/s');
    expect(client).toHaveTextContent('The window stayed at 64 KiB for 41 s.');
    expect(screen.getByRole('region', { name: 'Seen from broker.pcap on broker-2 (server)' })).toHaveTextContent(
      'The broker sent into a 64 KiB window for 41 s.',
    );
    expect(screen.queryByText('TcpRetransSegs rose by 84.')).not.toBeInTheDocument();
  });

  it('opens and closes a line from the keyboard', async () => {
    const user = userEvent.setup();
    renderWithProviders(<FindingList findings={[COUNTERS]} incidentId={3} sources={SOURCES} />);
    await user.tab();
    const line = screen.getByRole('button', { name: /\+84 retransmitted segments/ });
    expect(line).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByText('TcpRetransSegs rose by 84.')).toBeInTheDocument();
    await user.keyboard(' ');
    expect(screen.queryByText('TcpRetransSegs rose by 84.')).not.toBeInTheDocument();
  });

  it('keeps the same kind and key apart when the files saw different times (different traffic)', () => {
    const earlier = makeFinding({
      ...FROM_BROKER,
      refs: [{ evidence: 2, label: 'connection 0', connection: '0', packets: [1, 9], time: [10, 71], lines: null }],
    });
    renderWithProviders(<FindingList findings={[FROM_CLIENT, earlier]} incidentId={3} sources={SOURCES} />);
    expect(screen.getAllByRole('button', { expanded: false })).toHaveLength(2);
    expect(screen.queryByText(/seen from 2 files/)).not.toBeInTheDocument();
  });

  it('keeps an opened line open when a new analysis replaces its finding', async () => {
    const user = userEvent.setup();
    const { rerender, queryClient } = renderWithProviders(
      <FindingList findings={[COUNTERS]} incidentId={3} sources={SOURCES} />,
    );
    await user.click(screen.getByRole('button', { name: /\+84 retransmitted segments/ }));
    rerender(
      <QueryClientProvider client={queryClient}>
        <MemoryRouter>
          <FindingList
            findings={[{ ...COUNTERS, id: 99, explanation: 'TcpRetransSegs rose by 85.' }]}
            incidentId={3}
            sources={SOURCES}
          />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    expect(screen.getByText('TcpRetransSegs rose by 85.')).toBeInTheDocument();
  });

  it('keeps findings of one kind from the same file apart', () => {
    const other = makeFinding({ ...FROM_CLIENT, id: 14, title: 'Receive window pinned on a second look' });
    renderWithProviders(<FindingList findings={[FROM_CLIENT, other]} incidentId={3} sources={SOURCES} />);
    expect(screen.getAllByRole('button', { expanded: false })).toHaveLength(2);
  });
});

describe('FindingList, findings drawn across files', () => {
  const SIX = new Map([
    [24, { filename: 'client.strace', host: 'client', role: 'client' }],
    [23, { filename: 'client.pcap', host: 'client', role: 'client' }],
    [30, { filename: 'server.pcap', host: 'server', role: 'server' }],
    [20, { filename: 'client-nstat-after.txt', host: 'client', role: 'client' }],
    [21, { filename: 'client-nstat-before.txt', host: 'client', role: 'client' }],
  ]);
  const deadline = (id: number, capture: number) =>
    makeFinding({
      id,
      evidence: null,
      kind: 'app.deadline_close',
      key: `deadline-6-${String(capture)}-10.0`,
      severity: 'high',
      title: "The client's 10.0 s deadline closed 1 connection while the server was still sending",
      explanation: `strace and capture ${String(capture)}`,
      refs: [
        { evidence: 24, label: 'the deadline', connection: null, packets: null, time: null, lines: null },
        { evidence: capture, label: 'connection 0', connection: '0', packets: null, time: null, lines: null },
      ],
    });

  it('merges one conclusion reached through two captures into one line that names every file', async () => {
    const user = userEvent.setup();
    renderWithProviders(<FindingList findings={[deadline(42, 23), deadline(43, 30)]} incidentId={3} sources={SIX} />);
    const [line, ...others] = within(screen.getByRole('list', { name: 'Findings' })).getAllByRole('button', {
      expanded: false,
    });
    expect(others).toHaveLength(0);
    expect(line).toHaveTextContent(
      'the same from 2 sets of files: client.strace and client.pcap on client (client), server.pcap on server (server)',
    );
    if (!line) throw new Error('no line');
    await user.click(line);
    expect(
      screen.getByRole('region', { name: 'Seen from client.strace on client (client), server.pcap on server (server)' })
        .textContent,
    ).toContain('strace and capture 30');
  });

  it('names the files of a finding across evidence instead of "several files"', () => {
    const retransmits = makeFinding({
      id: 47,
      evidence: null,
      kind: 'host.retransmits',
      key: 'counters-3-2',
      title: '0 TCP segments retransmitted on client',
      refs: [
        { evidence: 21, label: 'TcpRetransSegs', connection: null, packets: null, time: null, lines: [55, 55] },
        { evidence: 20, label: 'TcpRetransSegs', connection: null, packets: null, time: null, lines: [55, 55] },
      ],
    });
    renderWithProviders(<FindingList findings={[retransmits]} incidentId={3} sources={SIX} />);
    expect(screen.getByRole('button', { expanded: false })).toHaveTextContent(
      'client-nstat-before.txt and client-nstat-after.txt on client (client)',
    );
    expect(screen.queryByText(/several files/)).not.toBeInTheDocument();
  });
});

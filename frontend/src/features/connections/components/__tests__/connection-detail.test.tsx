import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';

import type { TimeSequenceSender } from '@/api/types';
import { makeConnection, makeTimeSequence } from '@/testing/fixtures';
import { json, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { ConnectionDetailView } from '../connection-detail';

// jsdom cannot draw on a canvas; the graph's own test checks what uPlot is given.
vi.mock('uplot', () => ({
  default: class FakeUPlot {
    constructor(_opts: unknown, _data: unknown, target: HTMLElement) {
      target.appendChild(document.createElement('canvas'));
    }
    setSize() {
      // nothing to lay out
    }
    destroy() {
      // nothing to free
    }
  },
}));

const BASE = '/api/incidents/3/evidence/11/connections/0/';

const DETAIL = {
  ...makeConnection(),
  detail: {
    syn_count: 3,
    syn_times: [{ time: 1714557600.25 }, { time: 1714557601.25 }, { time: 1714557602.25 }],
    synack_count: 1,
    handshake_complete: true,
    ecn_setup_syn: false,
    ecn_setup_synack: false,
    window_scale_note: 'window scale 7 (client) / 7 (server), from the captured handshake',
    first_fin_by: 'client',
    first_fin_time: 1714557630.25,
    first_rst_by: null,
    first_rst_time: null,
    c2s: {
      packets: 153,
      payload_bytes: 0,
      retransmissions: 0,
      rto_retransmissions: 0,
      fast_retransmissions: 0,
      window_min: 0,
      window_median: 32768,
      window_max: 32768,
      window_scaled: true,
      zero_windows: 49,
      zero_window_seconds: 2.9,
      mss: 1448,
    },
    s2c: {
      packets: 103,
      payload_bytes: 10_485_760,
      retransmissions: 4,
      rto_retransmissions: 1,
      fast_retransmissions: 3,
      tail_loss_probes: 2,
      tlp_wait: 0.41,
      keep_alives: 5,
      capture_duplicates: 7,
      rtt_min: 0.1366,
      rtt_median: 0.14,
      rtt_p99: 0.2,
      rtt_samples: 101,
      max_in_flight: 32768,
    },
  },
};

function Harness() {
  const [sender, setSender] = useState<TimeSequenceSender>('auto');
  return (
    <ConnectionDetailView
      incidentId={3}
      evidenceId={11}
      connId={0}
      sender={sender}
      onSenderChange={setSender}
      highlight={[1714557600.5, 1714557601]}
    />
  );
}

describe('ConnectionDetailView', () => {
  it('shows the handshake, the close and each direction, then the graph for the chosen sender', async () => {
    const user = userEvent.setup();
    const { requests } = mockApi({
      [`GET ${BASE}`]: () => json(DETAIL),
      [`GET ${BASE}time-sequence/`]: (request) =>
        json(
          makeTimeSequence({
            sender: new URLSearchParams(request.search).get('sender') === 'client' ? 'client' : 'server',
          }),
        ),
    });
    renderWithProviders(<Harness />);
    await screen.findByRole('heading', { name: /Connection 0:/ });
    const facts = screen.getByLabelText('Handshake and close');
    expect(facts).toHaveTextContent('complete, 3 SYNs');
    expect(facts).toHaveTextContent('(retries after 1.00 s, 1.00 s)');
    expect(facts).toHaveTextContent('FIN first by the client');
    const directions = screen.getByRole('table', { name: 'Each direction' });
    const zeroRow = within(directions).getByRole('row', { name: /Zero windows/ });
    expect(zeroRow).toHaveTextContent('49 (2.90 s)');
    expect(within(directions).getByRole('row', { name: /Retransmissions \(RTO/ })).toHaveTextContent(
      '2 (0 / 0 / 2)4 (1 / 3 / 0)',
    );
    expect(within(directions).getByRole('row', { name: /Tail loss probes/ })).toHaveTextContent('2 (410 ms)');
    expect(within(directions).getByRole('row', { name: /Keep-alives/ })).toHaveTextContent('5');
    expect(within(directions).getByRole('row', { name: /MSS/ })).toHaveTextContent('1,448 B');
    expect(within(directions).getByRole('row', { name: /Captured twice/ })).toHaveTextContent('7');
    expect(within(directions).getByRole('row', { name: /RTT/ })).toHaveTextContent(
      '137 ms / 140 ms / 200 ms (101 samples)',
    );

    await screen.findByText(/Data from the server: 3 segments, 2 ACKs, 1 retransmission drawn/);
    expect(screen.getByText(/The shaded band is the time range the finding points at/)).toBeInTheDocument();
    expect(
      within(screen.getByRole('list', { name: 'Legend' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Data segments', 'Retransmissions', 'ACK', 'Advertised window edge', 'SYN and SYN-ACK (dashed)']);
    const first = new URLSearchParams(requests.find((r) => r.path.endsWith('time-sequence/'))?.search);
    expect(first.get('sender')).toBe('auto');
    expect(first.get('max_points')).toBe('100000');

    await user.click(screen.getByLabelText('the client'));
    await screen.findByText(/Data from the client/);
    await waitFor(() => {
      expect(new URLSearchParams(requests.at(-1)?.search).get('sender')).toBe('client');
    });
  });

  it('counts unanswered SYNs as retransmissions and links the packets', async () => {
    const failed = {
      ...makeConnection({ syn_count: 5, synack_count: 0, retrans_c2s: 0, retrans_s2c: 0, rtt_ms: null }),
      detail: {
        syn_count: 5,
        synack_count: 0,
        handshake_complete: false,
        window_scale_note: 'no window scale agreed: the SYN was never answered in the capture',
        c2s: {
          packets: 5,
          retransmissions: 0,
          rto_retransmissions: 0,
          fast_retransmissions: 0,
          rtt_min: 0.02,
          rtt_median: 0.02,
          rtt_p99: 0.02,
          rtt_samples: 1,
        },
        s2c: { packets: 0, retransmissions: 0, rto_retransmissions: 0, fast_retransmissions: 0 },
      },
    };
    mockApi({
      [`GET ${BASE}`]: () => json(failed),
      [`GET ${BASE}time-sequence/`]: () => json(makeTimeSequence()),
    });
    renderWithProviders(
      <ConnectionDetailView incidentId={3} evidenceId={11} connId={0} sender="auto" onSenderChange={() => undefined} />,
    );
    const directions = await screen.findByRole('table', { name: 'Each direction' });
    const row = within(directions).getByRole('row', { name: /Retransmissions/ });
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['4 (0 / 0 / 4)', '0 (0 / 0 / 0)']);
    expect(within(within(directions).getByRole('row', { name: /RTT/ })).getAllByRole('cell')[0]).toHaveTextContent(
      /^20 ms \/ 20 ms \/ 20 ms \(1 sample\)$/,
    );
    expect(screen.getByLabelText('Handshake and close')).not.toHaveTextContent('not captured');
    expect(screen.getByRole('link', { name: 'Show packets' }).getAttribute('href')).toBe(
      '/incidents/3/evidence/11/connections/0/packets',
    );
  });
});

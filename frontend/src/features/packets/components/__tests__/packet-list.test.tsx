import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { json, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { PacketList } from '../packet-list';

const BASE = '/api/incidents/3/evidence/11/connections/4/packets/';

function packet(number: number, extra: Record<string, unknown> = {}) {
  return {
    number,
    time: 1714557600 + number / 1000,
    src: '10.0.0.1:40000',
    dst: '10.0.0.2:80',
    flags: ['ACK'],
    seq: number * 100,
    ack: 1,
    length: 100,
    window: 512,
    annotations: [],
    from_client: true,
    ...extra,
  };
}

function page(numbers: number[], next: number | null) {
  return {
    packets: numbers.map((n) => packet(n, n === 78 ? { annotations: ['retransmission'], flags: ['PSH', 'ACK'] } : {})),
    next_from: next,
    scanned: 1000,
    error: null,
    first_packet: 1,
    last_packet: 400,
    client: '10.0.0.1:40000',
    server: '10.0.0.2:80',
    indexed: true,
  };
}

describe('PacketList', () => {
  it('lists a page with its annotations, pages forward and back, and links the pcap of the range', async () => {
    const user = userEvent.setup();
    const { requests } = mockApi({
      [`GET ${BASE}`]: (request) => {
        const start = Number(new URLSearchParams(request.search).get('start'));
        return json(start === 78 ? page([78, 79, 80], 200) : page([200, 201], null));
      },
    });
    renderWithProviders(
      <PacketList incidentId={3} evidenceId={11} connId={4} start={78} timeRange={[1714557600, 1714557700]} />,
    );
    const table = await screen.findByRole('table');
    const row = within(table).getByRole('row', { name: /^78 / });
    expect(row).toHaveTextContent('PSH ACK');
    expect(row).toHaveTextContent('retransmission');
    expect(row).toHaveTextContent('100 B');
    expect(within(table).getByRole('row', { name: /^79 / })).toHaveTextContent('1.000 ms');
    const query = new URLSearchParams(requests[0]?.search);
    expect([query.get('start'), query.get('time_from'), query.get('time_to')]).toEqual([
      '78',
      '1714557600',
      '1714557700',
    ]);
    const download = screen.getByRole('link', { name: 'Download these packets (pcap)' });
    expect(download.getAttribute('href')).toBe(
      '/api/incidents/3/evidence/11/connections/4/packets.pcap?start=78&time_from=1714557600&time_to=1714557700',
    );
    expect(screen.getByRole('button', { name: /Previous/ })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: /Next 100/ }));
    await screen.findByText(/Page 2: packets 200–201/);
    expect(screen.getByRole('button', { name: /Next 100/ })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: /Previous/ }));
    await screen.findByText(/Page 1: packets 78–80/);
  });

  it("sorts the page by a clicked header, keeping each packet's time since the one before it in the capture", async () => {
    const user = userEvent.setup();
    const lengths: Record<number, number> = { 10: 0, 11: 1448, 12: 512 };
    mockApi({
      [`GET ${BASE}`]: () =>
        json({
          ...page([], null),
          packets: [10, 11, 12].map((n) =>
            packet(n, { length: lengths[n], time: 1714557600 + (n === 12 ? 0.212 : n / 1000) }),
          ),
        }),
    });
    renderWithProviders(<PacketList incidentId={3} evidenceId={11} connId={4} start={10} />);
    const table = await screen.findByRole('table');
    const numbers = () =>
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((r) => r.firstElementChild?.textContent);
    expect(numbers()).toEqual(['10', '11', '12']);
    const lengthHeader = () => screen.getByRole('button', { name: 'Sort by Payload length, bytes' }).closest('th');
    expect(lengthHeader()).toHaveAttribute('aria-sort', 'none');

    await user.click(screen.getByRole('button', { name: 'Sort by Payload length, bytes' }));
    expect(numbers()).toEqual(['10', '12', '11']);
    expect(lengthHeader()).toHaveAttribute('aria-sort', 'ascending');
    await user.click(screen.getByRole('button', { name: 'Sort by Payload length, bytes' }));
    expect(numbers()).toEqual(['11', '12', '10']);
    expect(lengthHeader()).toHaveAttribute('aria-sort', 'descending');

    // The longest wait first: packet 12 came 201 ms after packet 11, whatever order the rows are in.
    await user.click(screen.getByRole('button', { name: /^Sort by Time since the previous packet/ }));
    await user.click(screen.getByRole('button', { name: /^Sort by Time since the previous packet/ }));
    expect(numbers()).toEqual(['12', '11', '10']);
    expect(within(table).getByRole('row', { name: /^12 / })).toHaveTextContent('201.000 ms');
    expect(within(table).getByRole('row', { name: /^10 / })).toHaveTextContent('—');
  });

  it('says so when the range holds no packets', async () => {
    mockApi({ [`GET ${BASE}`]: () => json(page([], null)) });
    renderWithProviders(<PacketList incidentId={3} evidenceId={11} connId={4} />);
    await screen.findByText('No packets of this connection in this range.');
  });
});

import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router-dom';
import { describe, expect, it } from 'vitest';

import { makeConnection } from '@/testing/fixtures';
import { json, mockApi, type RecordedRequest } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/render';

import { ConnectionsTable } from '../connections-table';

const PATH = '/api/incidents/3/evidence/11/connections/';

function params(request: RecordedRequest | undefined) {
  return new URLSearchParams(request?.search ?? '');
}

function renderTable(count = 2, route = '/incidents/3/evidence/11/connections') {
  const api = mockApi({
    [`GET ${PATH}`]: () =>
      json({
        count,
        results: [
          makeConnection(),
          makeConnection({
            conn_id: 1,
            client: '10.0.0.6:40000',
            bytes_s2c: 10_485_760,
            rtt_ms: 136.6,
            has_rst: false,
          }),
        ],
      }),
  });
  renderWithProviders(
    <Routes>
      <Route
        path="/incidents/:incidentId/evidence/:evidenceId/connections"
        element={<ConnectionsTable incidentId={3} evidenceId={11} />}
      />
      <Route path="/incidents/:incidentId/evidence/:evidenceId/connections/:connId" element={<p>detail page</p>} />
    </Routes>,
    { route },
  );
  return api;
}

describe('ConnectionsTable', () => {
  it('asks for the first page in connection order and formats bytes and milliseconds', async () => {
    const { requests } = renderTable();
    const table = await screen.findByRole('table', { name: 'Connections' });
    const first = params(requests[0]);
    expect(first.get('ordering')).toBe('conn_id');
    expect(first.get('limit')).toBe('50');
    expect(first.get('offset')).toBe('0');
    expect(first.getAll('flag')).toEqual([]);
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    // Both rows in view: no "rows 1–2 in view" beside the count.
    expect(screen.getByText('2 connections').parentElement).toHaveTextContent(/^2 connections$/);
    expect(rows[1]).toHaveTextContent('302 KiB');
    expect(rows[1]).toHaveTextContent('0.025 ms');
    expect(rows[2]).toHaveTextContent('10.0 MiB');
    expect(rows[2]).toHaveTextContent('137 ms');
    expect(screen.getByRole('button', { name: 'Sort by Connection id' }).closest('th')).toHaveAttribute(
      'aria-sort',
      'ascending',
    );
  });

  it('sorts by a clicked header, then reverses on a second click', async () => {
    const user = userEvent.setup();
    const { requests } = renderTable();
    await screen.findByRole('table', { name: 'Connections' });
    await user.click(screen.getByRole('button', { name: 'Sort by Retransmissions by the server' }));
    await waitFor(() => {
      expect(params(requests.at(-1)).get('ordering')).toBe('retrans_s2c');
    });
    const header = () => screen.getByRole('button', { name: 'Sort by Retransmissions by the server' }).closest('th');
    expect(header()).toHaveAttribute('aria-sort', 'ascending');
    expect(screen.getByRole('button', { name: 'Sort by Connection id' }).closest('th')).toHaveAttribute(
      'aria-sort',
      'none',
    );

    await user.click(screen.getByRole('button', { name: 'Sort by Retransmissions by the server' }));
    await waitFor(() => {
      expect(params(requests.at(-1)).get('ordering')).toBe('-retrans_s2c');
    });
    expect(header()).toHaveAttribute('aria-sort', 'descending');
  });

  it('filters by flags (repeated flag parameters) and by a search once typing pauses', async () => {
    const user = userEvent.setup();
    const { requests } = renderTable();
    await screen.findByRole('table', { name: 'Connections' });
    await user.click(screen.getByRole('button', { name: 'Zero window' }));
    await user.click(screen.getByRole('button', { name: 'RST' }));
    await waitFor(() => {
      expect(params(requests.at(-1)).getAll('flag')).toEqual(['rst', 'zero_window']);
    });
    expect(screen.getByRole('button', { name: 'Zero window' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Retransmissions' })).toHaveAttribute('aria-pressed', 'false');

    await user.type(screen.getByLabelText('Search address or port'), '10.0.0.6');
    await waitFor(() => {
      expect(params(requests.at(-1)).get('search')).toBe('10.0.0.6');
    });
    // One request for the whole word, not one per keystroke.
    expect(requests.filter((r) => params(r).get('search') !== null)).toHaveLength(1);
    expect(params(requests.at(-1)).getAll('flag')).toEqual(['rst', 'zero_window']);
  });

  it('draws only the rows in view of 100,000 and fetches the page the scroll reaches, by offset', async () => {
    const { requests } = mockApi({
      [`GET ${PATH}`]: (request) => {
        const offset = Number(params(request).get('offset'));
        const limit = Number(params(request).get('limit'));
        return json({
          count: 100_000,
          results: Array.from({ length: limit }, (_, k) =>
            makeConnection({ conn_id: offset + k, client: `10.0.${String(Math.floor((offset + k) / 250))}.1:40000` }),
          ),
        });
      },
    });
    renderWithProviders(<ConnectionsTable incidentId={3} evidenceId={11} />, {
      route: '/incidents/3/evidence/11/connections',
    });
    const table = await screen.findByRole('table', { name: 'Connections' });
    expect(screen.getByText('100,000 connections')).toBeInTheDocument();
    expect(table).toHaveAttribute('aria-rowcount', '100001');
    await screen.findByRole('link', { name: /^Connection 0:/ });
    expect(await screen.findByText(/^· rows 1–\d+ in view$/)).toBeInTheDocument();
    const drawn = () => within(table).getAllByRole('row').length - 1;
    // A screenful (about 600 px of 33 px rows) and a few either side: not 100,000, not one page of 50.
    expect(drawn()).toBeGreaterThan(10);
    expect(drawn()).toBeLessThan(50);
    expect(requests.map((r) => params(r).get('offset'))).toEqual(['0']);

    // Scroll to the middle: the rows there are asked for (their page's offset) and drawn, still only a screenful.
    const box = table.parentElement;
    if (!box) throw new Error('the table has no scroll box');
    Object.defineProperty(box, 'scrollTop', { configurable: true, value: 50_000 * 33 });
    fireEvent.scroll(box);
    expect(await screen.findByRole('link', { name: /^Connection 50000:/ })).toBeInTheDocument();
    expect(requests.map((r) => params(r).get('offset'))).toContain('50000');
    expect(screen.queryByRole('link', { name: /^Connection 0:/ })).not.toBeInTheDocument();
    expect(drawn()).toBeLessThan(50);
    const first = within(table).getAllByRole('row')[1];
    expect(Number(first?.getAttribute('aria-rowindex'))).toBeGreaterThan(49_000);
  });

  it('starts again at the top when the sort changes', async () => {
    const user = userEvent.setup();
    const { requests } = renderTable(120);
    const table = await screen.findByRole('table', { name: 'Connections' });
    const box = table.parentElement;
    if (!box) throw new Error('the table has no scroll box');
    box.scrollTop = 900;
    await user.click(screen.getByRole('button', { name: 'Sort by Duration' }));
    await waitFor(() => {
      expect(params(requests.at(-1)).get('ordering')).toBe('duration');
    });
    expect(params(requests.at(-1)).get('offset')).toBe('0');
    expect(box.scrollTop).toBe(0);
  });

  it('reads its state from the URL and opens a connection from its row', async () => {
    const user = userEvent.setup();
    const { requests } = renderTable(2, '/incidents/3/evidence/11/connections?sort=-bytes_s2c&flag=zero_window');
    await screen.findByRole('table', { name: 'Connections' });
    expect(params(requests[0]).get('ordering')).toBe('-bytes_s2c');
    expect(params(requests[0]).getAll('flag')).toEqual(['zero_window']);
    await user.click(screen.getByRole('link', { name: /^Connection 1:/ }));
    expect(await screen.findByText('detail page')).toBeInTheDocument();
  });
});

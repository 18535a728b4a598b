import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type uPlot from 'uplot';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { makeFinding } from '@/testing/fixtures';
import { renderWithProviders } from '@/testing/render';

import { FindingChart } from '../finding-chart';

// jsdom has no 2D canvas context: a stand-in records what uPlot was asked to draw.
const plots = vi.hoisted(() => [] as { opts: uPlot.Options; data: uPlot.AlignedData; destroyed: boolean }[]);
vi.mock('uplot', () => {
  class FakeUPlot {
    static paths = { stepped: () => () => null, bars: () => () => null };
    record: { opts: uPlot.Options; data: uPlot.AlignedData; destroyed: boolean };
    constructor(opts: uPlot.Options, data: uPlot.AlignedData, target: HTMLElement) {
      this.record = { opts, data, destroyed: false };
      plots.push(this.record);
      target.appendChild(document.createElement('canvas'));
    }
    destroy() {
      this.record.destroyed = true;
    }
  }
  return { default: FakeUPlot };
});

beforeEach(() => {
  plots.length = 0;
});

describe('FindingChart', () => {
  it('draws a counter finding’s change per interval and lists it in a table', async () => {
    const finding = makeFinding({
      kind: 'host.retransmits',
      data: {
        counters: { TcpRetransSegs: 93 },
        per_interval: {
          start: [null, null, null],
          end: [null, null, null],
          from: ['n1.txt', 'n2.txt', 'n3.txt'],
          to: ['n2.txt', 'n3.txt', 'n4.txt'],
          series: { TcpRetransSegs: [6, 84, 3] },
        },
      },
    });
    renderWithProviders(<FindingChart finding={finding} />);
    const chart = await screen.findByRole('img', { name: /Counter changes over 3 intervals: TcpRetransSegs 6, 84, 3/ });
    await waitFor(() => {
      expect(chart.querySelector('canvas')).not.toBeNull();
    });
    const table = screen.getByRole('table', { name: 'Per interval' });
    const rows = within(table)
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(rows).toEqual(['IntervalTcpRetransSegs', 'n1.txt → n2.txt6', 'n2.txt → n3.txt84', 'n3.txt → n4.txt3']);
    expect(plots[0]?.opts.series.map((s) => s.label)).toEqual(['Snapshot', 'TcpRetransSegs']);
  });

  it('draws each slow prefix’s delivery rate over time and the spread of the one a person picks', async () => {
    const user = userEvent.setup();
    const line = (v: number) => [v, v, v];
    const finding = makeFinding({
      kind: 'sockets.bbr_candidates',
      data: {
        candidates: ['198.51.100.0/24'],
        over_time: {
          snapshots: [1, 2, 3],
          times: [1700000000, 1700000010, 1700000020],
          all_p50: line(50e6),
          prefixes: [
            { prefix: '198.51.100.0/24', p10: line(1e6), p50: line(1.1e6), p90: line(1.2e6) },
            { prefix: '203.0.113.0/24', p10: line(2e6), p50: line(9e6), p90: line(90e6) },
          ],
          prefixes_left_out: 0,
        },
      },
    });
    renderWithProviders(<FindingChart finding={finding} />);
    await screen.findByRole('img', { name: /Delivery rate over 3 snapshots for 198.51.100.0\/24, 203.0.113.0\/24/ });
    // The chart is made in an effect after the figure renders.
    await waitFor(() => {
      expect(plots).toHaveLength(1);
    });
    const first = plots.at(-1);
    expect(first?.opts.series.map((s) => s.label)).toEqual([
      'Time',
      'every prefix (median)',
      '198.51.100.0/24 (candidate)',
      '203.0.113.0/24',
      '198.51.100.0/24 90th percentile',
      '198.51.100.0/24 10th percentile',
    ]);
    expect(first?.opts.bands).toEqual([{ series: [4, 5], fill: 'rgba(36, 86, 199, 0.12)' }]);

    await user.selectOptions(screen.getByLabelText(/Spread \(10th–90th percentile\) of/), '203.0.113.0/24');
    await waitFor(() => {
      expect(plots.at(-1)?.data.slice(4)).toEqual([line(90e6), line(2e6)]);
    });
    expect(first?.destroyed).toBe(true);
  });

  it('draws nothing for a finding whose data holds no series', () => {
    const view = renderWithProviders(<FindingChart finding={makeFinding({ data: { packets: 3 } })} />);
    expect(view.container).toBeEmptyDOMElement();
  });
});

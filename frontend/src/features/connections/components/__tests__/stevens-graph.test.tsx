import { render, screen } from '@testing-library/react';
import type uPlot from 'uplot';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { makeTimeSequence } from '@/testing/fixtures';

import { toStevensData } from '../../lib/stevens-data';
import {
  drawBand,
  drawMarks,
  handshakeMarks,
  initialView,
  labelRows,
  STEVENS_COLOURS,
} from '../../lib/stevens-options';
import { StevensGraph } from '../stevens-graph';

// jsdom has no 2D canvas context, so uPlot cannot draw here: a stand-in records what it was asked
// to draw and puts a canvas where uPlot would.
const plots = vi.hoisted(
  () =>
    [] as {
      opts: uPlot.Options;
      data: uPlot.AlignedData;
      destroyed: boolean;
      scales: Record<string, { min: number; max: number }>;
    }[],
);
vi.mock('uplot', () => ({
  default: class FakeUPlot {
    record: {
      opts: uPlot.Options;
      data: uPlot.AlignedData;
      destroyed: boolean;
      scales: Record<string, { min: number; max: number }>;
    };
    constructor(opts: uPlot.Options, data: uPlot.AlignedData, target: HTMLElement) {
      this.record = { opts, data, destroyed: false, scales: {} };
      plots.push(this.record);
      target.appendChild(document.createElement('canvas'));
    }
    setScale(key: string, limits: { min: number; max: number }) {
      this.record.scales[key] = limits;
    }
    setSize() {
      // nothing to lay out in jsdom
    }
    destroy() {
      this.record.destroyed = true;
    }
  },
}));

beforeEach(() => {
  plots.length = 0;
});

describe('StevensGraph', () => {
  it('draws segments, retransmissions, the ACK line and the window edge on one canvas', () => {
    const { container } = render(<StevensGraph series={makeTimeSequence()} />);
    expect(container.querySelectorAll('canvas')).toHaveLength(1);
    expect(screen.getByRole('img', { name: 'Time-sequence graph: 3 data segments, 2 ACKs' })).toBeInTheDocument();
    expect(plots).toHaveLength(1);
    const { opts, data } = plots[0] ?? { opts: { series: [] }, data: [] };

    expect(opts.series.map((s) => s.label)).toEqual([
      'Time',
      'Data segments',
      'Retransmissions',
      'ACK',
      'Advertised window edge',
    ]);
    // Segments are points only; the ACK and window lines are lines across the segment rows.
    expect(opts.series[1]?.points?.show).toBe(true);
    expect(opts.series[2]?.stroke).toBe(STEVENS_COLOURS.retransmissions);
    expect(opts.series[3]?.spanGaps).toBe(true);
    expect(opts.series[4]?.spanGaps).toBe(true);

    // Segments at 0.1, 0.3, 0.5 s (the last one retransmitted) and ACKs at 0.2, 0.4 s, merged in time.
    expect(Array.from(data[0] as Float64Array)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(data[1]).toEqual([1, null, 1001, null, null]);
    expect(data[2]).toEqual([null, null, null, null, 1]);
    expect(data[3]).toEqual([null, 1001, null, 2001, null]);
    expect(data[4]).toEqual([null, 66537, null, 67537, null]);
    expect(opts.hooks?.drawClear).toBeUndefined();
  });

  it('shades a referenced time range, relative to the series’ time origin', () => {
    const series = makeTimeSequence();
    render(<StevensGraph series={series} highlight={[series.t0 + 0.2, series.t0 + 0.4]} />);
    expect(plots[0]?.opts.hooks?.drawClear).toHaveLength(1);
    const fillRect = vi.fn();
    drawBand(
      {
        valToPos: (value: number) => value * 1000,
        bbox: { left: 50, top: 10, width: 1000, height: 300 },
        ctx: { save: vi.fn(), restore: vi.fn(), fillRect, fillStyle: '' },
      },
      [0.2, 0.4],
    );
    const [left, top, width, height] = fillRect.mock.calls[0] as number[];
    expect(left).toBeCloseTo(200);
    expect(width).toBeCloseTo(200);
    expect([top, height]).toEqual([10, 300]);

    // Zoomed in past the band's start: it begins at the plot's left edge.
    fillRect.mockClear();
    drawBand(
      {
        valToPos: (value: number) => value * 1000,
        bbox: { left: 300, top: 10, width: 1000, height: 300 },
        ctx: { save: vi.fn(), restore: vi.fn(), fillRect, fillStyle: '' },
      },
      [0.2, 0.4],
    );
    expect(fillRect.mock.calls[0]?.slice(0, 3)).toEqual([300, 10, 100]);
  });

  it('opens on a referenced time range that is a small part of the connection', () => {
    const series = makeTimeSequence({
      seg_time: [0, 10, 20, 30],
      seg_seq: [1, 2, 3, 4],
      seg_len: [1, 1, 1, 1],
      seg_retransmission: [false, false, true, false],
      ack_time: [],
      ack_seq: [],
      ack_window_edge: [],
    });
    render(<StevensGraph series={series} highlight={[series.t0 + 19, series.t0 + 21]} />);
    expect(plots[0]?.scales.x).toEqual({ min: 18.5, max: 21.5 });
    // A range that covers most of the connection leaves the whole of it in view.
    expect(initialView(new Float64Array([0, 30]), [0, 29])).toBeNull();
    expect(initialView(new Float64Array([0, 30]), undefined)).toBeNull();
  });

  it('destroys the chart when it goes away', () => {
    const { unmount } = render(<StevensGraph series={makeTimeSequence()} />);
    unmount();
    expect(plots[0]?.destroyed).toBe(true);
  });
});

describe('StevensGraph, a handshake that needed retries', () => {
  it('marks every SYN and SYN-ACK and opens wide enough to show them, whichever side’s data it draws', () => {
    // The ECN case: the first SYN unanswered, retried after 1.03 s; the server's data starts after that.
    const t0 = 1714557600;
    const series = makeTimeSequence({ t0, seg_time: [1.0267, 1.0276, 1.0329], ack_time: [1.0268, 1.033] });
    render(<StevensGraph series={series} handshake={{ syn: [t0, t0 + 1.0265], synAck: [t0 + 1.0267] }} />);
    expect(
      screen.getByRole('img', {
        name: 'Time-sequence graph: 3 data segments, 2 ACKs; SYN at 0.000 s, SYN retry 1 at 1.026 s, SYN-ACK at 1.027 s',
      }),
    ).toBeInTheDocument();
    const plot = plots[0];
    expect(plot?.opts.hooks?.draw).toHaveLength(1);
    const view = plot?.scales.x;
    expect(view?.min).toBeLessThanOrEqual(0);
    expect(view?.max).toBeGreaterThanOrEqual(1.0329);
  });

  it('leaves the view alone when the handshake is inside the data', () => {
    render(<StevensGraph series={makeTimeSequence()} handshake={{ syn: [1714557600.1], synAck: [] }} />);
    expect(plots[0]?.scales.x).toBeUndefined();
  });
});

describe('handshakeMarks', () => {
  it('names the first SYN and SYN-ACK and numbers their retries, in time order', () => {
    expect(handshakeMarks([100, 101, 103], [101.5, 102.5], 100).map((m) => [m.label, m.at])).toEqual([
      ['SYN', 0],
      ['SYN retry 1', 1],
      ['SYN-ACK', 1.5],
      ['SYN-ACK retry 1', 2.5],
      ['SYN retry 2', 3],
    ]);
  });
});

describe('labelRows', () => {
  it('stacks labels that would touch and puts a label back on the top row once there is room', () => {
    // Zoomed out on a 30 s connection: a SYN, its four retries and a SYN-ACK within a few pixels of each other,
    // then two SYN-ACK retries far to the right.
    const xs = [10, 12, 14, 16, 18, 20, 200, 210];
    const widths = [30, 70, 70, 70, 70, 50, 90, 90];
    const rows = labelRows(xs, widths);
    expect(rows).toEqual([0, 1, 2, 3, 4, 5, 0, 1]);
    // No two labels on one row overlap.
    for (let i = 0; i < xs.length; i += 1) {
      for (let j = i + 1; j < xs.length; j += 1) {
        if (rows[i] !== rows[j]) continue;
        expect((xs[j] ?? 0) >= (xs[i] ?? 0) + (widths[i] ?? 0)).toBe(true);
      }
    }
  });

  it('draws the labels of a SYN and its retries clear of each other and inside the plot', () => {
    const fillText = vi.fn();
    const noop = vi.fn();
    const ctx = {
      save: noop,
      restore: noop,
      setLineDash: noop,
      beginPath: noop,
      moveTo: noop,
      lineTo: noop,
      stroke: noop,
      fillText,
      // 6 px a character, as a canvas would measure an 11 px font roughly.
      measureText: (text: string) => ({ width: text.length * 6 }) as TextMetrics,
      strokeStyle: '',
      fillStyle: '',
      font: '',
    };
    const bbox = { left: 50, top: 10, width: 1000, height: 300 };
    // Zoomed out: a SYN and four retries 1 s apart are 4 px apart; the last mark sits on the right edge.
    const marks = handshakeMarks([0, 1, 2, 3, 4, 250], [], 0);
    drawMarks({ valToPos: (value: number) => bbox.left + value * 4, bbox, ctx }, marks);
    const drawn = fillText.mock.calls.map(([text, x, y]) => ({
      text: String(text),
      x: Number(x),
      y: Number(y),
      width: String(text).length * 6,
    }));
    expect(drawn).toHaveLength(6);
    for (const label of drawn) {
      expect(label.x).toBeGreaterThanOrEqual(bbox.left);
      expect(label.x + label.width).toBeLessThanOrEqual(bbox.left + bbox.width);
    }
    for (const [i, a] of drawn.entries()) {
      for (const b of drawn.slice(i + 1)) {
        const apart = a.y !== b.y || a.x + a.width <= b.x || b.x + b.width <= a.x;
        expect(apart, `${a.text} and ${b.text} overlap`).toBe(true);
      }
    }
  });

  it('keeps labels far apart on one row', () => {
    expect(labelRows([0, 100, 200, 300], [50, 50, 50, 50])).toEqual([0, 0, 0, 0]);
  });
});

describe('toStevensData', () => {
  it('keeps a hundred thousand segments in flat columns, in time order even when the clock stepped back', () => {
    const n = 100_000;
    const segTime = Array.from({ length: n }, (_, i) => i / 1000);
    segTime[10] = 0.0005; // a timestamp that went backwards
    const series = makeTimeSequence({
      seg_time: segTime,
      seg_seq: segTime.map((_, i) => i * 1448),
      seg_len: segTime.map(() => 1448),
      seg_retransmission: segTime.map((_, i) => i % 1000 === 0),
      ack_time: [0.00025],
      ack_seq: [1448],
      ack_window_edge: [1448 + 65536],
    });
    const started = performance.now();
    const [x, segments, retransmissions, acks] = toStevensData(series);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(x).toHaveLength(n + 1);
    const backwards = x.findIndex((t, i) => i > 0 && t < (x[i - 1] ?? 0));
    expect(backwards).toBe(-1);
    expect(retransmissions.filter((v) => v !== null)).toHaveLength(100);
    expect(segments.filter((v) => v !== null)).toHaveLength(n - 100);
    expect(acks.filter((v) => v !== null)).toEqual([1448]);
  });
});

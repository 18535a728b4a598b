import uPlot from 'uplot';

import { formatBytes } from '@/lib/format';

import { STEVENS_SERIES } from './stevens-data';

export const STEVENS_HEIGHT = 420;

/** Colours per series; retransmissions stand out in red. */
export const STEVENS_COLOURS = {
  segments: '#2456c7',
  retransmissions: '#d92d20',
  acks: '#1d7a46',
  windowEdge: '#c77700',
} as const;

function pointsOnly(label: string, colour: string, size: number): uPlot.Series {
  return {
    label,
    stroke: colour,
    fill: colour,
    // Draw every point, however dense: a missing retransmission would hide the story.
    paths: () => null,
    points: { show: true, size, stroke: colour, fill: colour, width: 0 },
  };
}

function line(label: string, colour: string): uPlot.Series {
  return { label, stroke: colour, width: 1.25, spanGaps: true, points: { show: false } };
}

/** What drawing a band needs from a chart (uPlot has it all). */
export interface BandCanvas {
  valToPos: (value: number, scale: string, canvasPixels: boolean) => number;
  bbox: { left: number; top: number; width: number; height: number };
  ctx: Pick<CanvasRenderingContext2D, 'save' | 'restore' | 'fillRect' | 'fillStyle'>;
}

/** Shades a time range (seconds after t0) behind the series, the full height of the plot area. */
export function drawBand(u: BandCanvas, band: readonly [number, number]): void {
  const { bbox, ctx } = u;
  // Clipped to the plot area: once zoomed in, the range may reach far outside it.
  const left = Math.max(u.valToPos(band[0], 'x', true), bbox.left);
  const right = Math.min(u.valToPos(band[1], 'x', true), bbox.left + bbox.width);
  if (right < left) return;
  ctx.save();
  ctx.fillStyle = 'rgba(255, 196, 0, 0.18)';
  ctx.fillRect(left, bbox.top, Math.max(right - left, 2), bbox.height);
  ctx.restore();
}

/** A handshake packet drawn as a dashed vertical line: a SYN or SYN-ACK, first or retried (seconds after t0). */
export interface HandshakeMark {
  at: number;
  label: string;
}

export const HANDSHAKE_COLOUR = '#7a3db8';

/**
 * The SYNs and SYN-ACKs of a connection as marks, whichever direction the graph shows: a failed or slow
 * handshake (SYN retried after 1 s, a SYN-ACK retried) shows on the graph even when it has no data at all.
 */
export function handshakeMarks(
  synTimes: readonly number[],
  synAckTimes: readonly number[],
  t0: number,
): HandshakeMark[] {
  const marks = (times: readonly number[], name: string) =>
    times.map((time, i) => ({ at: time - t0, label: i === 0 ? name : `${name} retry ${String(i)}` }));
  return [...marks(synTimes, 'SYN'), ...marks(synAckTimes, 'SYN-ACK')].sort((a, b) => a.at - b.at);
}

/** Space between two labels on one row, in CSS pixels. */
const LABEL_GAP = 6;

/**
 * The row of each label (0 is the top one): a label goes on the highest row where it starts clear of the label
 * before it on that row, so labels of marks close together (a SYN and its SYN-ACK a millisecond apart, retries
 * 1 s apart zoomed out) stack instead of overlapping. `xs` in drawing order, left to right; widths the same units.
 */
export function labelRows(xs: readonly number[], widths: readonly number[], gap = LABEL_GAP): number[] {
  const rowEnds: number[] = [];
  return xs.map((x, i) => {
    let row = rowEnds.findIndex((end) => x >= end + gap);
    if (row === -1) row = rowEnds.length;
    rowEnds[row] = x + (widths[i] ?? 0);
    return row;
  });
}

/** What drawing the marks needs of a plot: what uPlot has, and what a test can stand in for. */
export interface MarkCanvas extends Omit<BandCanvas, 'ctx'> {
  ctx: Pick<
    CanvasRenderingContext2D,
    | 'save'
    | 'restore'
    | 'setLineDash'
    | 'beginPath'
    | 'moveTo'
    | 'lineTo'
    | 'stroke'
    | 'fillText'
    | 'measureText'
    | 'strokeStyle'
    | 'fillStyle'
    | 'font'
  >;
}

/** Draws each mark as a dashed line the plot's height, its label at the top (stacked where labels would touch). */
export function drawMarks(u: MarkCanvas, marks: readonly HandshakeMark[]): void {
  const { bbox, ctx } = u;
  ctx.save();
  ctx.strokeStyle = HANDSHAKE_COLOUR;
  ctx.fillStyle = HANDSHAKE_COLOUR;
  ctx.setLineDash([5, 4]);
  ctx.font = `${String(11 * devicePixelRatio)}px sans-serif`;
  const pad = 3 * devicePixelRatio;
  const right = bbox.left + bbox.width;
  // A label goes right of its line, or left of it where it would run past the plot's right edge.
  const shown = marks
    .map((mark) => {
      const x = u.valToPos(mark.at, 'x', true);
      const width = ctx.measureText(mark.label).width;
      return { mark, x, width, start: x + pad + width > right ? x - pad - width : x + pad };
    })
    .filter(({ x }) => x >= bbox.left && x <= right)
    .sort((a, b) => a.start - b.start);
  const rows = labelRows(
    shown.map(({ start }) => start),
    shown.map(({ width }) => width),
    LABEL_GAP * devicePixelRatio,
  );
  shown.forEach(({ mark, x, start }, i) => {
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    ctx.fillText(mark.label, start, bbox.top + 12 * devicePixelRatio * (1 + (rows[i] ?? 0)));
  });
  ctx.restore();
}

/**
 * The options for one graph. Exported so that tests can check what the chart is asked to draw.
 * A highlighted time range is drawn as a shaded band behind the series; handshake packets as dashed lines.
 */
export function stevensOptions(
  width: number,
  band: readonly [number, number] | undefined,
  onZoom?: (min: number, max: number) => void,
  marks: readonly HandshakeMark[] = [],
): uPlot.Options {
  const [segments, retransmissions, acks, windowEdge] = STEVENS_SERIES;
  return {
    width,
    height: STEVENS_HEIGHT,
    scales: { x: { time: false } },
    axes: [
      { label: 'Seconds after the first packet', values: (_u, ticks) => ticks.map((t) => `${String(t)} s`) },
      {
        label: 'Relative sequence number',
        size: 80,
        values: (_u, ticks) => ticks.map((t) => formatBytes(t)),
      },
    ],
    // The page draws its own legend (accessible, and testable without a canvas).
    legend: { show: false },
    // No hover points: with 200k rows and sparse series, finding the nearest non-null value costs a scan per move.
    cursor: { drag: { x: true, y: true, uni: 20 }, points: { show: false } },
    series: [
      { label: 'Time' },
      pointsOnly(segments, STEVENS_COLOURS.segments, 3),
      pointsOnly(retransmissions, STEVENS_COLOURS.retransmissions, 6),
      line(acks, STEVENS_COLOURS.acks),
      line(windowEdge, STEVENS_COLOURS.windowEdge),
    ],
    hooks: {
      ...(marks.length > 0
        ? {
            draw: [
              (u: uPlot) => {
                drawMarks(u, marks);
              },
            ],
          }
        : {}),
      ...(band
        ? {
            drawClear: [
              (u: uPlot) => {
                drawBand(u, band);
              },
            ],
          }
        : {}),
      // Say which time range is on screen (drag-zoom and double-click reset change it).
      setScale: [
        (u: uPlot, key: string) => {
          const { min, max } = u.scales.x ?? {};
          if (key === 'x' && min !== undefined && max !== undefined) onZoom?.(min, max);
        },
      ],
    },
  };
}

/**
 * Where the graph opens: on a referenced time range that is a small part of the connection (with a
 * margin either side), so an RTO in a 30 s transfer is visible at once; otherwise the whole of it.
 */
export function initialView(
  x: Float64Array,
  band: readonly [number, number] | undefined,
  marks: readonly HandshakeMark[] = [],
): [number, number] | null {
  if (!band) {
    // The handshake may lie outside the data drawn (the server's data starts after the client's SYN retries).
    const times = [...marks.map((m) => m.at), x[0], x[x.length - 1]].filter((t) => t !== undefined);
    const [low, high] = [Math.min(...times), Math.max(...times)];
    // (A microsecond of slack: a SYN that is the first packet drawn is inside, whatever the float rounding.)
    const outside = marks.some((m) => m.at < (x[0] ?? Infinity) - 1e-6 || m.at > (x[x.length - 1] ?? -Infinity) + 1e-6);
    if (!outside || !(high > low)) return null;
    const margin = (high - low) * 0.02;
    return [low - margin, high + margin];
  }
  if (x.length < 2) return null;
  const first = x[0] ?? 0;
  const span = (x[x.length - 1] ?? 0) - first;
  const width = band[1] - band[0];
  if (span <= 0 || width >= span / 2) return null;
  const margin = Math.max(width * 0.25, span * 0.01);
  return [band[0] - margin, band[1] + margin];
}

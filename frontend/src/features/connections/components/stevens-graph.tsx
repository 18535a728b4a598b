import 'uplot/dist/uPlot.min.css';

import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';

import type { TimeSequence } from '@/api/types';

import { toStevensData } from '../lib/stevens-data';
import { handshakeMarks, initialView, STEVENS_HEIGHT, stevensOptions } from '../lib/stevens-options';

interface StevensGraphProps {
  series: TimeSequence;
  /** The connection's SYNs and SYN-ACKs, seconds since the epoch: drawn as dashed lines. */
  handshake?: { syn: readonly number[]; synAck: readonly number[] } | undefined;
  /** A time range to highlight, seconds since the epoch (from a finding's reference). */
  highlight?: readonly [number, number] | undefined;
}

/**
 * A time-sequence (Stevens) graph on one canvas with uPlot: the sender's data segments as points
 * (sequence number against time), retransmissions in red, the receiver's ACK line and the right edge
 * of its advertised window. Zoom by dragging; double-click resets. No React element per point, so a
 * connection with a hundred thousand segments stays responsive.
 */
export function StevensGraph({ series, highlight, handshake }: StevensGraphProps) {
  const container = useRef<HTMLDivElement>(null);
  const [range, setRange] = useState<readonly [number, number] | null>(null);
  const data = useMemo(() => toStevensData(series), [series]);
  // By value: a new tuple with the same numbers must not rebuild the chart.
  const from = highlight ? highlight[0] - series.t0 : undefined;
  const to = highlight ? highlight[1] - series.t0 : undefined;
  const band = useMemo<[number, number] | undefined>(
    () => (from !== undefined && to !== undefined ? [from, to] : undefined),
    [from, to],
  );

  const marks = useMemo(
    () => (handshake ? handshakeMarks(handshake.syn, handshake.synAck, series.t0) : []),
    [handshake, series.t0],
  );

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const width = Math.max(element.clientWidth, 320);
    const plot = new uPlot(
      stevensOptions(
        width,
        band,
        (min, max) => {
          setRange([min, max]);
        },
        marks,
      ),
      data,
      element,
    );
    const view = initialView(data[0], band, marks);
    if (view) plot.setScale('x', { min: view[0], max: view[1] });
    // jsdom (tests) has no ResizeObserver; browsers do. Only a new width redraws.
    let lastWidth = width;
    const observer =
      typeof ResizeObserver === 'undefined'
        ? undefined
        : new ResizeObserver(() => {
            const next = Math.max(element.clientWidth, 320);
            if (next === lastWidth) return;
            lastWidth = next;
            plot.setSize({ width: next, height: STEVENS_HEIGHT });
          });
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      plot.destroy();
    };
  }, [data, band, marks]);

  return (
    <figure className="stevens">
      <div
        ref={container}
        className="stevens__plot"
        role="img"
        aria-label={`Time-sequence graph: ${series.seg_time.length.toLocaleString('en-US')} data segments, ${series.ack_time.length.toLocaleString('en-US')} ACKs${marks.length > 0 ? `; ${marks.map((m) => `${m.label} at ${formatSeconds(m.at)}`).join(', ')}` : ''}`}
      />
      {range && (
        <figcaption className="small muted" aria-live="polite">
          Showing {formatSeconds(range[0])} to {formatSeconds(range[1])} after the first packet
        </figcaption>
      )}
    </figure>
  );
}

function formatSeconds(value: number): string {
  return `${value.toFixed(3)} s`;
}

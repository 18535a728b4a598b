import 'uplot/dist/uPlot.min.css';

import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';

import { formatMs, latencyBins, marksFor, medianMs } from '../lib/latency';
import { isDecade } from '../lib/palette';

const HEIGHT = 200;

/**
 * The latency samples' histogram on a log time axis (uPlot bars), with vertical marks at the TCP timers
 * (200 ms, 1 s, 3 s) and the service's own median, so a tail that sits on a timer shows at a glance.
 */
export function LatencyHistogram({ data }: { data: unknown }) {
  const container = useRef<HTMLDivElement>(null);
  const bins = useMemo(() => latencyBins(data), [data]);
  const marks = useMemo(() => marksFor(bins, medianMs(data)), [bins, data]);

  useEffect(() => {
    const element = container.current;
    if (!element || bins.length === 0) return;
    const xs = bins.map((b) => Math.sqrt(b.lowerMs * b.upperMs));
    const ys = bins.map((b) => b.count);
    const lowest = Math.min(bins[0]?.lowerMs ?? 1, ...marks.map((m) => m.ms)) / 1.5;
    const highest = Math.max(bins.at(-1)?.upperMs ?? 10, ...marks.map((m) => m.ms)) * 1.5;
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 320),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: {
          time: false,
          // uPlot.Scale.Distr.Logarithmic: a const enum, which isolatedModules cannot import by name.
          // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
          distr: 3,
          range: () => [lowest, highest],
        },
        y: {
          // Log counts: a tail of 15 samples next to 1,400 ordinary ones must still show.
          // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
          distr: 3,
          range: (_u, _min, max) => [0.5, Math.max(max, 1) * 2],
        },
      },
      axes: [
        { label: 'latency (log scale)', values: (_u, splits) => splits.map((v) => (isDecade(v) ? formatMs(v) : '')) },
        { label: 'samples (log scale)', size: 60 },
      ],
      series: [
        {},
        {
          label: 'samples',
          stroke: '#2456c7',
          fill: 'rgba(36, 86, 199, 0.35)',
          paths: uPlot.paths.bars?.({ size: [0.8, 40] }),
          points: { show: false },
        },
      ],
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            ctx.save();
            ctx.font = `${String(11 * devicePixelRatio)}px sans-serif`;
            ctx.textAlign = 'left';
            marks.forEach((mark, i) => {
              const x = u.valToPos(mark.ms, 'x', true);
              const median = mark.label.startsWith('median');
              ctx.strokeStyle = median ? '#1d7a46' : '#b42318';
              ctx.fillStyle = ctx.strokeStyle;
              ctx.setLineDash(median ? [] : [4 * devicePixelRatio, 3 * devicePixelRatio]);
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              // One row per mark, so labels of nearby marks (200 ms and 1 s) never overlap.
              const y = u.bbox.top + 12 * (i + 1) * devicePixelRatio;
              const fits = x + 3 * devicePixelRatio + ctx.measureText(mark.label).width <= u.bbox.left + u.bbox.width;
              ctx.textAlign = fits ? 'left' : 'right';
              ctx.fillText(mark.label, fits ? x + 3 * devicePixelRatio : x - 3 * devicePixelRatio, y);
            });
            ctx.restore();
          },
        ],
      },
    };
    const plot = new uPlot(options, [xs, ys], element);
    return () => {
      plot.destroy();
    };
  }, [bins, marks]);

  if (bins.length === 0) return <p className="muted small">No histogram in this finding.</p>;
  const total = bins.reduce((n, b) => n + b.count, 0);
  return (
    <figure className="latency-histogram">
      <div
        ref={container}
        role="img"
        aria-label={`Latency histogram: ${total.toLocaleString('en-US')} samples from ${formatMs(bins[0]?.lowerMs ?? 0)} to ${formatMs(bins.at(-1)?.upperMs ?? 0)}; marks at ${marks.map((m) => m.label).join(', ')}`}
      />
      <figcaption className="small muted">Marks: {marks.map((m) => m.label).join(' · ')}</figcaption>
    </figure>
  );
}

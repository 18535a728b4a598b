import 'uplot/dist/uPlot.min.css';

import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';

import { formatClock, formatCount, formatDateTime } from '@/lib/format';

import { counterIntervals, steppedColumns } from '../lib/counter-intervals';
import { clockTick, seriesColour } from '../lib/palette';

const HEIGHT = 180;

/**
 * A counter finding's changes per interval (three or more snapshots of one host): one stepped line per counter
 * that moved, each interval's change held from its start to its end, so a burst shows where it happened; the
 * same numbers in a table below for reading and for screen readers.
 */
export function CounterIntervalsChart({ data }: { data: unknown }) {
  const container = useRef<HTMLDivElement>(null);
  const intervals = useMemo(() => counterIntervals(data), [data]);

  useEffect(() => {
    const element = container.current;
    if (!element || !intervals) return;
    const { rows, counters, timed } = intervals;
    const names = [...rows.map((r) => r.from), rows.at(-1)?.to ?? ''];
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 320),
      height: HEIGHT,
      // The table below names each line (with its colour) and holds the numbers.
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.15] } },
      axes: [
        {
          label: timed ? 'time (your zone)' : 'snapshot',
          space: 90,
          values: (_u, splits, _axis, _space, step) =>
            splits.map((v) => (timed ? clockTick(v, step) : Number.isInteger(v) ? (names[v] ?? '') : '')),
        },
        { label: 'per interval', size: 60, values: (_u, splits) => splits.map((v) => formatCount(v)) },
      ],
      series: [
        { label: timed ? 'Interval from' : 'Snapshot', value: (_u, v) => (timed ? formatClock(v) : (names[v] ?? '')) },
        ...counters.map((counter, i) => ({
          label: counter,
          stroke: seriesColour(i),
          width: 2,
          paths: uPlot.paths.stepped?.({ align: 1 }),
          points: { show: false },
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : formatCount(v)),
        })),
      ],
    };
    const plot = new uPlot(options, steppedColumns(intervals), element);
    return () => {
      plot.destroy();
    };
  }, [intervals]);

  if (!intervals) return null;
  const { rows, counters } = intervals;
  const busiest = counters[0];
  return (
    <figure className="counter-intervals chart">
      <figcaption className="small muted">Change of each counter per interval between snapshots</figcaption>
      <div
        ref={container}
        role="img"
        aria-label={`Counter changes over ${String(rows.length)} intervals${
          busiest ? `: ${busiest} ${rows.map((r) => formatCount(r.changes[busiest] ?? 0)).join(', ')}` : ''
        }`}
      />
      <table className="table table--compact" aria-label="Per interval">
        <thead>
          <tr>
            <th scope="col">Interval</th>
            {counters.map((c, i) => (
              <th key={c} scope="col" className="num">
                <span className="chart__swatch" style={{ background: seriesColour(i) }} aria-hidden="true" />
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={`${row.from}→${row.to}`}>
              <td>
                {row.start !== null && row.end !== null
                  ? `${formatDateTime(new Date(row.start * 1000).toISOString())} → ${formatClock(row.end)}`
                  : `${row.from} → ${row.to}`}
              </td>
              {counters.map((c) => (
                <td key={c} className="num">
                  {formatCount(row.changes[c] ?? 0)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

import 'uplot/dist/uPlot.min.css';

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';

import { formatBitRate, formatClock } from '@/lib/format';

import { deliveryRates } from '../lib/delivery-rates';
import { clockTick, isDecade, seriesColour } from '../lib/palette';

const HEIGHT = 240;
/** The default kept as one array: a new one each render would redraw the chart each render. */
const NO_CANDIDATES: readonly string[] = [];

/** A rate series' value in the legend. */
const rateValue = (_u: uPlot, v: number | null) => (v === null ? '—' : formatBitRate(v));

/**
 * Socket statistics over many snapshots: each slow prefix's median delivery rate per snapshot (one line each,
 * the slowest first), the median of every prefix's flows for comparison (dashed), and for one prefix a person
 * picks, the spread of its flows (10th to 90th percentile) as a band. A log scale: rates span decades.
 */
export function DeliveryRateChart({ data, candidates = NO_CANDIDATES }: { data: unknown; candidates?: readonly string[] }) {
  const id = useId();
  const container = useRef<HTMLDivElement>(null);
  const rates = useMemo(() => deliveryRates(data), [data]);
  const [focus, setFocus] = useState<string>(candidates[0] ?? rates?.prefixes[0]?.prefix ?? '');

  useEffect(() => {
    const element = container.current;
    if (!element || !rates) return;
    const focused = rates.prefixes.find((p) => p.prefix === focus);
    const lines = rates.prefixes.map((p, i) => ({
      label: `${p.prefix}${candidates.includes(p.prefix) ? ' (candidate)' : ''}`,
      stroke: seriesColour(i),
      width: p.prefix === focus ? 2.5 : 1.25,
      spanGaps: true,
      value: rateValue,
    }));
    const columns: uPlot.AlignedData = [
      rates.x,
      rates.all,
      ...rates.prefixes.map((p) => p.p50),
      ...(focused ? [focused.p90, focused.p10] : []),
    ];
    const spread = focused
      ? ['90th', '10th'].map((percentile) => ({
          label: `${focused.prefix} ${percentile} percentile`,
          stroke: 'rgba(36, 86, 199, 0.35)',
          width: 1,
          spanGaps: true,
          value: rateValue,
        }))
      : [];
    const hi = 2 + rates.prefixes.length;
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 320),
      height: HEIGHT,
      legend: { show: true },
      cursor: { drag: { x: true, y: false } },
      scales: {
        x: { time: false },
        // uPlot.Scale.Distr.Logarithmic: a const enum, which isolatedModules cannot import by name.
        // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
        y: { distr: 3 },
      },
      axes: [
        {
          label: rates.timed ? 'time (your zone)' : 'snapshot',
          space: 90,
          values: (_u, splits, _axis, _space, step) =>
            splits.map((v) => (rates.timed ? clockTick(v, step) : String(v))),
        },
        {
          label: 'delivery rate (log scale)',
          size: 100,
          values: (_u, splits) => splits.map((v) => (isDecade(v) ? formatBitRate(v).replace('.00 ', ' ') : '')),
        },
      ],
      series: [
        { label: rates.timed ? 'Time' : 'Snapshot', value: (_u, v) => (rates.timed ? formatClock(v) : String(v)) },
        {
          label: 'every prefix (median)',
          stroke: '#5d6673',
          dash: [6, 4],
          width: 1.5,
          spanGaps: true,
          value: rateValue,
        },
        ...lines,
        ...spread,
      ],
      bands: focused ? [{ series: [hi, hi + 1], fill: 'rgba(36, 86, 199, 0.12)' }] : [],
    };
    const plot = new uPlot(options, columns, element);
    return () => {
      plot.destroy();
    };
  }, [rates, focus, candidates]);

  if (!rates) return null;
  const shown = rates.prefixes.length;
  return (
    <figure className="delivery-rates chart">
      <figcaption className="small muted">
        Median delivery rate per snapshot of the {shown} slowest prefix{shown === 1 ? '' : 'es'}
        {rates.leftOut > 0 ? ` (${String(rates.leftOut)} faster ones are in the table only)` : ''}; dashed: every prefix
        together.
      </figcaption>
      <label className="delivery-rates__focus small" htmlFor={`${id}-focus`}>
        Spread (10th–90th percentile) of{' '}
        <select
          id={`${id}-focus`}
          value={focus}
          onChange={(event) => {
            setFocus(event.target.value);
          }}
        >
          {rates.prefixes.map((p) => (
            <option key={p.prefix} value={p.prefix}>
              {p.prefix}
            </option>
          ))}
        </select>
      </label>
      <div
        ref={container}
        role="img"
        aria-label={`Delivery rate over ${String(rates.x.length)} snapshots for ${rates.prefixes
          .map((p) => p.prefix)
          .join(', ')}`}
      />
    </figure>
  );
}

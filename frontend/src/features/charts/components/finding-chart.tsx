import { lazy, Suspense, useMemo } from 'react';

import type { Finding } from '@/api/types';
import { Loading } from '@/components/loading';
import { isRecord } from '@/lib/narrow';

// Each chart is loaded when a finding that has one is first opened: uPlot stays out of the page's first load.
const LatencyHistogram = lazy(() => import('./latency-histogram').then((m) => ({ default: m.LatencyHistogram })));
const CounterIntervalsChart = lazy(() =>
  import('./counter-intervals-chart').then((m) => ({ default: m.CounterIntervalsChart })),
);
const DeliveryRateChart = lazy(() => import('./delivery-rate-chart').then((m) => ({ default: m.DeliveryRateChart })));

/**
 * The chart a finding's data calls for, chosen by what the data holds (a histogram of latencies, counter
 * changes per interval, delivery rates over time); null when it holds none of them.
 */
export function FindingChart({ finding }: { finding: Finding }) {
  const data = isRecord(finding.data) ? finding.data : null;
  // One array while the data stays the same: the delivery-rate chart redraws whenever its candidates change.
  const candidates = useMemo(
    () => (Array.isArray(data?.candidates) ? data.candidates.filter((c): c is string => typeof c === 'string') : []),
    [data],
  );
  if (!data) return null;
  let chart;
  if (Array.isArray(data.histogram) && isRecord(data.percentiles_ms)) chart = <LatencyHistogram data={data} />;
  else if (isRecord(data.per_interval)) chart = <CounterIntervalsChart data={data} />;
  else if (isRecord(data.over_time)) chart = <DeliveryRateChart data={data} candidates={candidates} />;
  else return null;
  return <Suspense fallback={<Loading label="Loading the chart…" />}>{chart}</Suspense>;
}

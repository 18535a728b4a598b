/** A BBR-candidate finding's `over_time` data: each slow prefix's delivery-rate percentiles per snapshot. */
import { isRecord } from '@/lib/narrow';

export interface PrefixRates {
  prefix: string;
  p10: (number | null)[];
  p50: (number | null)[];
  p90: (number | null)[];
}

export interface DeliveryRates {
  /** Epoch seconds of each snapshot when all say when they were taken; else the snapshot's number. */
  x: number[];
  timed: boolean;
  /** Every prefix's flows together, per snapshot: the median the others are compared with. */
  all: (number | null)[];
  prefixes: PrefixRates[];
  /** Prefixes past the chart's limit (the fastest): in the table, not drawn. */
  leftOut: number;
}

function series(value: unknown, length: number): (number | null)[] {
  const list: unknown[] = Array.isArray(value) ? value : [];
  return Array.from({ length }, (_, i) => {
    const item = list[i];
    return typeof item === 'number' ? item : null;
  });
}

/** The chart's data; null when the finding has no snapshots over time. */
export function deliveryRates(data: unknown): DeliveryRates | null {
  if (!isRecord(data) || !isRecord(data.over_time)) return null;
  const { times, snapshots, all_p50: all, prefixes, prefixes_left_out: leftOut } = data.over_time;
  if (!Array.isArray(snapshots) || snapshots.length === 0 || !Array.isArray(prefixes)) return null;
  const n = snapshots.length;
  const stamps = series(times, n).filter((t) => t !== null);
  const timed = stamps.length === n;
  return {
    x: timed ? stamps : snapshots.map((s: unknown, i) => (typeof s === 'number' ? s : i)),
    timed,
    all: series(all, n),
    prefixes: prefixes.filter(isRecord).map((p) => ({
      prefix: typeof p.prefix === 'string' ? p.prefix : '?',
      p10: series(p.p10, n),
      p50: series(p.p50, n),
      p90: series(p.p90, n),
    })),
    leftOut: typeof leftOut === 'number' ? leftOut : 0,
  };
}

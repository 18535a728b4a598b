/** A counters finding's `per_interval` data (three or more snapshots of one host) as a chart and a table read it. */
import { isRecord } from '@/lib/narrow';

export interface IntervalRow {
  from: string;
  to: string;
  start: number | null;
  end: number | null;
  /** How much each counter grew over this interval. */
  changes: Record<string, number>;
}

export interface CounterIntervals {
  rows: IntervalRow[];
  /** The counters that moved, in the engine's order. */
  counters: string[];
  /** True when every snapshot says when it was taken: the x axis is time; else it is the snapshots in order. */
  timed: boolean;
}

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The intervals, earliest first; null when the finding has none (two snapshots: one interval, no chart). */
export function counterIntervals(data: unknown): CounterIntervals | null {
  if (!isRecord(data) || !isRecord(data.per_interval)) return null;
  const { start, end, from, to, series } = data.per_interval;
  if (!Array.isArray(from) || !Array.isArray(to) || !Array.isArray(start) || !Array.isArray(end)) return null;
  if (!isRecord(series)) return null;
  const counters = Object.keys(series).filter((name) => Array.isArray(series[name]));
  if (from.length === 0 || counters.length === 0) return null;
  const rows = from.map((name, i) => ({
    from: text(name),
    to: text(to[i]),
    start: numberOrNull(start[i]),
    end: numberOrNull(end[i]),
    changes: Object.fromEntries(
      counters.map((counter) => {
        const values = series[counter] as unknown[];
        return [counter, typeof values[i] === 'number' ? values[i] : 0];
      }),
    ),
  }));
  return { rows, counters, timed: rows.every((r) => r.start !== null && r.end !== null) };
}

/**
 * uPlot's columns for stepped lines: x is each interval's start and the last one's end (epoch seconds, or the
 * snapshot's position when a time is unknown); each counter holds its change from one x to the next.
 */
export function steppedColumns(intervals: CounterIntervals): [number[], ...number[][]] {
  const { rows, counters, timed } = intervals;
  const x = timed
    ? [...rows.map((r) => r.start ?? 0), rows.at(-1)?.end ?? 0]
    : rows.map((_, i) => i).concat(rows.length);
  const ys = counters.map((counter) => {
    const values = rows.map((r) => r.changes[counter] ?? 0);
    return [...values, values.at(-1) ?? 0];
  });
  return [x, ...ys];
}

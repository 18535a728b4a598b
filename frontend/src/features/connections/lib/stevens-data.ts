import type { TimeSequence } from '@/api/types';

/**
 * uPlot's aligned data for a time-sequence (Stevens) graph: one shared x column (seconds after
 * `t0`) and four y columns, null where a series has no point at that x:
 * 1 data segments (seq), 2 retransmitted segments (seq), 3 the ACK line, 4 the advertised-window edge.
 */
export type StevensData = [
  x: Float64Array,
  segments: (number | null)[],
  retransmissions: (number | null)[],
  acks: (number | null)[],
  windowEdge: (number | null)[],
];

export const STEVENS_SERIES = ['Data segments', 'Retransmissions', 'ACK', 'Advertised window edge'] as const;

function isSorted(values: readonly number[]): boolean {
  for (let i = 1; i < values.length; i++) {
    if ((values[i] ?? 0) < (values[i - 1] ?? 0)) return false;
  }
  return true;
}

/**
 * The order in which to visit the segment and ACK rows so that time never goes backwards: a merge
 * of the two columns (they come in capture order, almost always sorted), or a sort when a clock
 * stepped back. Negative entries are ACK rows (−1 − index).
 */
function mergedOrder(segTime: readonly number[], ackTime: readonly number[]): Int32Array {
  const order = new Int32Array(segTime.length + ackTime.length);
  if (isSorted(segTime) && isSorted(ackTime)) {
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < segTime.length || j < ackTime.length) {
      const takeSegment = j >= ackTime.length || (i < segTime.length && (segTime[i] ?? 0) <= (ackTime[j] ?? 0));
      order[k++] = takeSegment ? i++ : -1 - j++;
    }
    return order;
  }
  const timeOf = (entry: number) => (entry >= 0 ? (segTime[entry] ?? 0) : (ackTime[-1 - entry] ?? 0));
  for (let i = 0; i < segTime.length; i++) order[i] = i;
  for (let j = 0; j < ackTime.length; j++) order[segTime.length + j] = -1 - j;
  return order.sort((a, b) => timeOf(a) - timeOf(b) || b - a);
}

/** Turns the API's columns into uPlot's aligned columns, in O(n) for sorted input; no per-point objects. */
export function toStevensData(series: TimeSequence): StevensData {
  const { seg_time: segTime, seg_seq: segSeq, seg_retransmission: retrans, ack_time: ackTime } = series;
  const { ack_seq: ackSeq, ack_window_edge: edge } = series;
  const order = mergedOrder(segTime, ackTime);
  const n = order.length;
  const x = new Float64Array(n);
  const segments = new Array<number | null>(n).fill(null);
  const retransmissions = new Array<number | null>(n).fill(null);
  const acks = new Array<number | null>(n).fill(null);
  const windowEdge = new Array<number | null>(n).fill(null);
  for (let k = 0; k < n; k++) {
    const entry = order[k] ?? 0;
    if (entry >= 0) {
      x[k] = segTime[entry] ?? 0;
      const seq = segSeq[entry] ?? null;
      if (retrans[entry]) retransmissions[k] = seq;
      else segments[k] = seq;
    } else {
      const j = -1 - entry;
      x[k] = ackTime[j] ?? 0;
      acks[k] = ackSeq[j] ?? null;
      windowEdge[k] = edge[j] ?? null;
    }
  }
  return [x, segments, retransmissions, acks, windowEdge];
}

/** How many segments are drawn as retransmissions. */
export function retransmissionCount(series: TimeSequence): number {
  return series.seg_retransmission.reduce((n, r) => (r ? n + 1 : n), 0);
}

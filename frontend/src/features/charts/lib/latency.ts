/** A latency finding's histogram as a chart reads it: log-spaced bins and the marks a person looks for. */

export interface LatencyBin {
  lowerMs: number;
  upperMs: number;
  count: number;
}

export interface TimerMark {
  ms: number;
  label: string;
}

/** TCP timers a tail lines up with: the minimum retransmission timeout (Linux), the first SYN retry (Linux)
 * and the first SYN retry (Windows). */
export const TCP_TIMER_MARKS: readonly TimerMark[] = [
  { ms: 200, label: '200 ms (minimum RTO)' },
  { ms: 1000, label: '1 s (SYN retry, Linux)' },
  { ms: 3000, label: '3 s (SYN retry, Windows)' },
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The bins of a ``latency.timer_signature`` finding's data; [] when it has none. */
export function latencyBins(data: unknown): LatencyBin[] {
  if (!isRecord(data) || !Array.isArray(data.histogram)) return [];
  const out: LatencyBin[] = [];
  for (const bin of data.histogram as unknown[]) {
    if (!isRecord(bin)) continue;
    const lower = Number(bin.lower_ms);
    const upper = bin.upper_ms === null ? lower * 10 ** 0.25 : Number(bin.upper_ms);
    const count = Number(bin.count);
    if (Number.isFinite(lower) && Number.isFinite(upper) && Number.isFinite(count) && lower > 0) {
      out.push({ lowerMs: lower, upperMs: upper, count });
    }
  }
  return out.sort((a, b) => a.lowerMs - b.lowerMs);
}

/** The service's own median, from the finding's percentiles. */
export function medianMs(data: unknown): number | null {
  if (!isRecord(data) || !isRecord(data.percentiles_ms)) return null;
  const p = data.percentiles_ms;
  const value = Number(p.p50 ?? p['50'] ?? NaN);
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** The marks to draw: the TCP timers inside (or just past) the samples' range, and the median. */
export function marksFor(bins: readonly LatencyBin[], median: number | null): TimerMark[] {
  const last = bins.at(-1);
  const top = last ? last.upperMs * 1.5 : 0;
  const marks = TCP_TIMER_MARKS.filter((m) => m.ms <= Math.max(top, 250));
  if (median !== null) marks.push({ ms: median, label: `median ${formatMs(median)}` });
  return marks;
}

export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 2)} s`;
  if (ms >= 1) return `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`;
  return `${(ms * 1000).toFixed(0)} µs`;
}

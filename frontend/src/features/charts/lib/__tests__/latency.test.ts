import { describe, expect, it } from 'vitest';

import { latencyBins, marksFor, medianMs } from '../latency';

// The shape of a latency.timer_signature finding's data (whodunnet/kinds/latency/analyzer.py): log-spaced bins,
// four per decade, empty ones left out; the last open-ended bin has no upper bound.
const data = {
  samples: 1500,
  percentiles_ms: { p50: 0.42, p90: 0.61, p99: 205.3, p100: 212.0 },
  histogram: [
    { lower_ms: 10 ** -0.5, upper_ms: 10 ** -0.25, count: 1400 },
    { lower_ms: 10 ** -0.25, upper_ms: 1, count: 85 },
    { lower_ms: 10 ** 2.25, upper_ms: null, count: 15 },
  ],
};

describe('latency histogram data', () => {
  it('reads the bins in order, giving the open-ended last one a bin width', () => {
    const bins = latencyBins(data);
    expect(bins.map((b) => b.count)).toEqual([1400, 85, 15]);
    expect(bins[2]?.upperMs).toBeCloseTo(10 ** 2.5, 6);
    expect(latencyBins({})).toEqual([]);
    expect(latencyBins({ histogram: [{ lower_ms: 'x' }] })).toEqual([]);
  });

  it('marks the 200 ms timer and the median for a tail at 200 ms, not timers far past the samples', () => {
    const marks = marksFor(latencyBins(data), medianMs(data));
    expect(marks.map((m) => m.label)).toEqual(['200 ms (minimum RTO)', 'median 420 µs']);
  });

  it('marks the 1 s SYN retry when connect times reach it', () => {
    const connects = { percentiles_ms: { p50: 5.13 }, histogram: [{ lower_ms: 1000, upper_ms: 1778, count: 32 }] };
    const labels = marksFor(latencyBins(connects), medianMs(connects)).map((m) => m.label);
    expect(labels).toContain('1 s (SYN retry, Linux)');
    expect(labels).toContain('median 5.1 ms');
  });
});

import { describe, expect, it } from 'vitest';

import { deliveryRates } from '../delivery-rates';

const overTime = {
  snapshots: [1, 2, 3],
  times: [1700000000, 1700000010, 1700000020],
  all_p50: [50e6, 51e6, 49e6],
  prefixes: [
    { prefix: '198.51.100.0/24', p10: [1.02e6, 1.02e6, null], p50: [1.1e6, 1.1e6, null], p90: [1.18e6, 1.18e6, null] },
  ],
  prefixes_left_out: 4,
};

describe('deliveryRates', () => {
  it('gives each prefix’s percentiles per snapshot on a time axis, a gap where it had no flow', () => {
    const rates = deliveryRates({ over_time: overTime });
    expect(rates?.timed).toBe(true);
    expect(rates?.x).toEqual([1700000000, 1700000010, 1700000020]);
    expect(rates?.prefixes[0]?.p50).toEqual([1.1e6, 1.1e6, null]);
    expect(rates?.all).toEqual([50e6, 51e6, 49e6]);
    expect(rates?.leftOut).toBe(4);
  });

  it('numbers the snapshots when they carry no time', () => {
    const rates = deliveryRates({ over_time: { ...overTime, times: [null, null, null] } });
    expect(rates?.timed).toBe(false);
    expect(rates?.x).toEqual([1, 2, 3]);
  });

  it('has nothing to draw without snapshots', () => {
    expect(deliveryRates({ over_time: { ...overTime, snapshots: [] } })).toBeNull();
    expect(deliveryRates({ prefixes: [] })).toBeNull();
  });
});

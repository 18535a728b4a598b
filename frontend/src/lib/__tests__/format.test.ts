import { describe, expect, it } from 'vitest';

import { formatRate } from '../format';

describe('formatRate', () => {
  it('says a rate as the engine’s titles do: KB/s below 1 MB/s, MB/s below 1 GB/s, then GB/s', () => {
    expect(formatRate(99_700)).toBe('99.7 KB/s');
    expect(formatRate(520_200)).toBe('520.2 KB/s');
    expect(formatRate(4_788_539)).toBe('4.79 MB/s');
    expect(formatRate(1_250_000_000)).toBe('1.25 GB/s');
    expect(formatRate(0)).toBe('— MB/s');
  });
});

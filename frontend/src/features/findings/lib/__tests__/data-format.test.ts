import { describe, expect, it } from 'vitest';

import { formatValue } from '../data-format';

const NONE = new Map();

describe('formatValue', () => {
  it('reads a list of sentences as a paragraph', () => {
    const field = { key: 'limits', label: 'What these snapshots can and cannot tell', unit: 'text' } as const;
    expect(formatValue(field, ['With 5 prefixes the bottom 20 % is the slowest.', '12 snapshots.'], NONE)).toBe(
      'With 5 prefixes the bottom 20 % is the slowest. 12 snapshots.',
    );
    expect(formatValue(field, ['10.81.1.0/24', '10.81.2.0/24'], NONE)).toBe('10.81.1.0/24, 10.81.2.0/24');
  });

  it('says a ratio as how many times', () => {
    const field = { key: 'tail_ratio', label: 'p99 against the median', unit: 'ratio' } as const;
    expect(formatValue(field, 389.754, NONE)).toBe('390×');
    expect(formatValue(field, 2.345, NONE)).toBe('2.3×');
  });
});

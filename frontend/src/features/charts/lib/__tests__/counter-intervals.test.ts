import { describe, expect, it } from 'vitest';

import { counterIntervals, steppedColumns } from '../counter-intervals';

const perInterval = {
  start: [1795000000, 1795000010, 1795000020],
  end: [1795000010, 1795000020, 1795000030],
  from: ['n1.txt', 'n2.txt', 'n3.txt'],
  to: ['n2.txt', 'n3.txt', 'n4.txt'],
  series: { TcpRetransSegs: [6, 84, 3], TcpExtTCPTimeouts: [2, 28, 1] },
};

describe('counterIntervals', () => {
  it('reads each interval with the change of every counter that moved', () => {
    const intervals = counterIntervals({ counters: { TcpRetransSegs: 93 }, per_interval: perInterval });
    expect(intervals?.timed).toBe(true);
    expect(intervals?.counters).toEqual(['TcpRetransSegs', 'TcpExtTCPTimeouts']);
    expect(intervals?.rows[1]).toEqual({
      from: 'n2.txt',
      to: 'n3.txt',
      start: 1795000010,
      end: 1795000020,
      changes: { TcpRetransSegs: 84, TcpExtTCPTimeouts: 28 },
    });
  });

  it('has nothing to draw for two snapshots (one interval: the finding says it)', () => {
    expect(counterIntervals({ per_interval: null })).toBeNull();
    expect(counterIntervals({})).toBeNull();
  });

  it('holds each change from its interval’s start to its end; without times, by snapshot order', () => {
    const timed = counterIntervals({ per_interval: perInterval });
    if (!timed) throw new Error('no intervals');
    expect(steppedColumns(timed)).toEqual([
      [1795000000, 1795000010, 1795000020, 1795000030],
      [6, 84, 3, 3],
      [2, 28, 1, 1],
    ]);
    const untimed = counterIntervals({ per_interval: { ...perInterval, start: [null, null, null] } });
    if (!untimed) throw new Error('no intervals');
    expect(untimed.timed).toBe(false);
    expect(steppedColumns(untimed)[0]).toEqual([0, 1, 2, 3]);
  });
});

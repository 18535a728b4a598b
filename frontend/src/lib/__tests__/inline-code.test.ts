import { describe, expect, it } from 'vitest';

import { splitInlineCode, withoutBackticks } from '../inline-code';

describe('splitInlineCode', () => {
  it('makes each pair of backticks a piece of code and leaves the rest as text', () => {
    expect(splitInlineCode('upload `ip -s link` and `ethtool IFACE` from the host')).toEqual([
      { code: false, text: 'upload ' },
      { code: true, text: 'ip -s link' },
      { code: false, text: ' and ' },
      { code: true, text: 'ethtool IFACE' },
      { code: false, text: ' from the host' },
    ]);
    expect(splitInlineCode('`uname -r`')).toEqual([{ code: true, text: 'uname -r' }]);
    expect(splitInlineCode('no commands here')).toEqual([{ code: false, text: 'no commands here' }]);
  });

  it('keeps an unpaired backtick as text (a sentence cut short)', () => {
    expect(splitInlineCode('run `date +%s; ip -s link` then `ss -tin')).toEqual([
      { code: false, text: 'run ' },
      { code: true, text: 'date +%s; ip -s link' },
      { code: false, text: ' then `ss -tin' },
    ]);
    expect(withoutBackticks('upload `ethtool IFACE` now')).toBe('upload ethtool IFACE now');
  });
});
